package io.github.once.examples.springorders;

import io.github.once.spring.rabbit.Once;

import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/** Takes each order's payment and stores the order once, however often RabbitMQ delivers it. */
@Component
public class OrderListener {
    private final PaymentClient payments;
    private final JdbcTemplate jdbc;

    public OrderListener(PaymentClient payments, JdbcTemplate jdbc) {
        this.payments = payments;
        this.jdbc = jdbc;
    }

    @RabbitListener(queuesToDeclare = @Queue("${orders.queue}"))
    @Once // key: the message_id (the producer sets it to the order id); a re-delivered order never gets here
    public void onOrder(Order order) {
        // The payment is the one effect outside the database. If the process dies after it, the transaction
        // (this row and Once's record) rolls back and the order comes again: the same key gets the first charge.
        String chargeId = payments.charge("order-" + order.orderId(), order);
        jdbc.update("INSERT INTO shop_order (order_id, sku, quantity, amount_cents, charge_id) VALUES (?, ?, ?, ?, ?)",
                order.orderId(), order.sku(), order.quantity(), order.amountCents(), chargeId);
    }
}
