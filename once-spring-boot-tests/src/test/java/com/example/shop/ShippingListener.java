package com.example.shop;

import io.github.once.spring.rabbit.Once;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** Ships each order once, however often RabbitMQ delivers it: the shipment and Once's record commit together. */
@Component
public class ShippingListener {
    private final JdbcTemplate jdbc;

    public ShippingListener(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    @RabbitListener(queuesToDeclare = @Queue("${shop.queue}"))
    @Once // the key is the message_id, its namespace the queue; a re-sent order is acked without calling ship
    public void ship(Message order) {
        jdbc.update("INSERT INTO shipment (order_id, body) VALUES (?, ?)",
                order.getMessageProperties().getMessageId(), order.getBody());
    }
}
