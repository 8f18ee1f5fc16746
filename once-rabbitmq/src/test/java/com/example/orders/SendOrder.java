package com.example.orders;

import com.rabbitmq.client.ConnectionFactory;

import io.github.once.rabbitmq.OncePublisher;

import java.nio.charset.StandardCharsets;

/** Sends one order to the queue "orders" and waits for the broker's confirm: run it twice, the order ships once. */
public final class SendOrder {

    public static void main(String[] args) throws Exception {
        ConnectionFactory rabbit = new ConnectionFactory();
        rabbit.setHost("127.0.0.1");
        try (com.rabbitmq.client.Connection connection = rabbit.newConnection();
             OncePublisher publisher = OncePublisher.builder(connection).build()) {
            send(publisher, "orders", args.length > 0 ? args[0] : "A-1001");
        }
    }

    /** Publishes {"order_id": "<orderId>", "sku": "book"} to {@code queue}; each call is a new message. */
    public static void send(OncePublisher publisher, String queue, String orderId) {
        String order = "{\"order_id\": \"" + orderId + "\", \"sku\": \"book\"}";
        publisher.publish("", queue, order.getBytes(StandardCharsets.UTF_8));
    }
}
