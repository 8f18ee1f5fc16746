package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

/**
 * Work that answers a request: the returned bytes are recorded with the completion and sent to the request's
 * {@code reply_to} with its {@code correlation_id}; a duplicate request gets the stored reply again. Return
 * {@code null} for no reply.
 */
@FunctionalInterface
public interface RequestHandler {
    byte[] handle(Delivery delivery, DeliveryContext context) throws Exception;
}
