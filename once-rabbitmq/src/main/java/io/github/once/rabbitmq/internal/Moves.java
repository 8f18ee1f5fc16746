package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;

import io.github.once.rabbitmq.DeadLetterReason;
import io.github.once.rabbitmq.OnceHeaders;

import java.util.HashMap;
import java.util.Map;

/** Builds the copies the consumer publishes when it moves a message to a delay queue or the dead-letter queue. */
public final class Moves {
    private Moves() {
    }

    /** The attempt number a delivery carries; 1 when it has none (or a malformed one). */
    public static int attempt(Delivery delivery) {
        Map<String, Object> headers = delivery.getProperties().getHeaders();
        Object value = headers == null ? null : headers.get(OnceHeaders.ATTEMPT);
        try {
            long n;
            if (value instanceof Number number) {
                n = number.longValue();
            } else if (value instanceof LongString || value instanceof String) {
                n = Long.parseLong(value.toString().trim());
            } else {
                return 1;
            }
            return (int) Math.max(1, Math.min(n, Integer.MAX_VALUE));
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    /** A copy that will be delivered again as attempt {@code nextAttempt}. */
    public static AMQP.BasicProperties retry(Delivery delivery, int nextAttempt) {
        Map<String, Object> headers = headers(delivery);
        headers.put(OnceHeaders.ATTEMPT, nextAttempt);
        return copy(delivery, headers);
    }

    /**
     * A copy for the dead-letter queue, with the reason, for a failure the last error, and for a missing or invalid
     * key the detail (why there is none).
     */
    public static AMQP.BasicProperties deadLetter(Delivery delivery, String queue, DeadLetterReason reason, String detail,
                                           int attempts, Throwable error, int maxErrorLength) {
        Map<String, Object> headers = headers(delivery);
        headers.put(OnceHeaders.REASON, reason.code());
        if (detail != null) {
            headers.put(OnceHeaders.DETAIL, detail);
        }
        headers.put(OnceHeaders.ATTEMPTS, attempts);
        headers.put(OnceHeaders.QUEUE, queue);
        if (error != null) {
            headers.put(OnceHeaders.ERROR, describe(error, maxErrorLength));
        }
        return copy(delivery, headers);
    }

    static String describe(Throwable error, int maxLength) {
        String text = error.getClass().getName() + (error.getMessage() == null ? "" : ": " + error.getMessage());
        return text.length() <= maxLength ? text : text.substring(0, Math.max(0, maxLength - 3)) + "...";
    }

    private static Map<String, Object> headers(Delivery delivery) {
        Map<String, Object> original = delivery.getProperties().getHeaders();
        Map<String, Object> headers = original == null ? new HashMap<>() : new HashMap<>(original);
        // The first move records where the message came from; later moves keep it.
        headers.putIfAbsent(OnceHeaders.ORIGINAL_EXCHANGE, delivery.getEnvelope().getExchange());
        headers.putIfAbsent(OnceHeaders.ORIGINAL_ROUTING_KEY, delivery.getEnvelope().getRoutingKey());
        return headers;
    }

    private static AMQP.BasicProperties copy(Delivery delivery, Map<String, Object> headers) {
        return delivery.getProperties().builder().headers(headers).deliveryMode(2).build();
    }
}
