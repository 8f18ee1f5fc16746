package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

/** The work to do once per message. Throwing means "failed": the message is retried later, then dead-lettered. */
@FunctionalInterface
public interface MessageHandler {
    void handle(Delivery delivery, DeliveryContext context) throws Exception;
}
