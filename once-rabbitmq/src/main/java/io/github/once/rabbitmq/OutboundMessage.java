package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;

import java.util.Objects;

/**
 * One message to publish. A {@code null} message ID in the properties means "stamp a new time-ordered one";
 * set it to a business key (such as {@code order-42-created}) to make re-sends from anywhere the same message.
 */
public record OutboundMessage(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body) {
    public OutboundMessage {
        Objects.requireNonNull(exchange, "exchange");
        Objects.requireNonNull(routingKey, "routingKey");
        properties = properties == null ? new AMQP.BasicProperties() : properties;
        body = body == null ? new byte[0] : body;
    }

    public static OutboundMessage of(String exchange, String routingKey, byte[] body) {
        return new OutboundMessage(exchange, routingKey, null, body);
    }

    /** The same message with this message ID. */
    public OutboundMessage withMessageId(String messageId) {
        return new OutboundMessage(exchange, routingKey, properties.builder().messageId(messageId).build(), body);
    }
}
