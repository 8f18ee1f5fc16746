package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;

import java.util.Objects;

/**
 * One message to publish. It has its message ID from the moment it is made: the one in its properties, or else a
 * new time-ordered one ({@link OncePublisher#newMessageId()}). Publishing the same object twice is therefore a
 * re-send of one message, which a consumer absorbs as a duplicate, and every {@code with...} copy keeps the ID.
 * Set a business key (such as {@code order-42-created}) with {@link #withMessageId} to make re-sends built
 * anywhere, even in another process, the same message.
 */
public record OutboundMessage(String exchange, String routingKey, AMQP.BasicProperties properties, byte[] body) {
    public OutboundMessage {
        Objects.requireNonNull(exchange, "exchange");
        Objects.requireNonNull(routingKey, "routingKey");
        if (properties == null) {
            properties = new AMQP.BasicProperties.Builder().messageId(OncePublisher.newMessageId()).build();
        } else if (properties.getMessageId() == null || properties.getMessageId().isBlank()) {
            properties = properties.builder().messageId(OncePublisher.newMessageId()).build();
        }
        body = body == null ? new byte[0] : body;
    }

    /** A message with a new message ID. */
    public static OutboundMessage of(String exchange, String routingKey, byte[] body) {
        return new OutboundMessage(exchange, routingKey, null, body);
    }

    /** This message's ID: never null or blank. */
    public String messageId() {
        return properties.getMessageId();
    }

    /** The same message with this message ID. */
    public OutboundMessage withMessageId(String messageId) {
        if (messageId == null || messageId.isBlank()) {
            throw new IllegalArgumentException("messageId must not be blank, but was '" + messageId + "'");
        }
        return new OutboundMessage(exchange, routingKey, properties.builder().messageId(messageId).build(), body);
    }

    /** The same message with these properties, keeping this message's ID unless they set another. */
    public OutboundMessage withProperties(AMQP.BasicProperties properties) {
        Objects.requireNonNull(properties, "properties");
        AMQP.BasicProperties kept = properties.getMessageId() == null || properties.getMessageId().isBlank()
                ? properties.builder().messageId(messageId()).build() : properties;
        return new OutboundMessage(exchange, routingKey, kept, body);
    }
}
