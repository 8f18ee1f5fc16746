package io.github.once.cli.dlq;

import com.rabbitmq.client.AMQP;
import io.github.once.rabbitmq.OnceHeaders;
import java.util.Map;

/**
 * One message read from a dead-letter queue and not yet settled.
 *
 * @param deliveryTag  its tag on the channel that read it
 * @param properties   its properties, headers included
 * @param body         its body
 */
record DeadLetter(long deliveryTag, AMQP.BasicProperties properties, byte[] body) {

    String messageId() {
        return properties.getMessageId();
    }

    /** A header as text, or null when absent. */
    String header(String name) {
        Map<String, Object> headers = properties.getHeaders();
        Object value = headers == null ? null : headers.get(name);
        return value == null ? null : value.toString();
    }

    String reason() {
        return header(OnceHeaders.REASON);
    }
}
