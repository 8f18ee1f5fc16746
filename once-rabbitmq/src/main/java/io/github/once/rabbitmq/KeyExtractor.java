package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Finds a message's idempotency id. Combine with {@link #orElse}: the seed's rule is
 * {@code messageId().orElse(jsonBody())}. A message with no id is never processed unguarded: it goes to the
 * dead-letter queue with reason {@code missing-key}.
 */
@FunctionalInterface
public interface KeyExtractor {

    /** The id, or empty when this extractor finds none (blank values count as none). */
    Optional<String> extract(Delivery delivery);

    default KeyExtractor orElse(KeyExtractor next) {
        Objects.requireNonNull(next, "next");
        return delivery -> {
            Optional<String> id = extract(delivery);
            return id.isPresent() ? id : next.extract(delivery);
        };
    }

    /** The AMQP {@code message_id} property. The default. */
    static KeyExtractor messageId() {
        return delivery -> nonBlank(delivery.getProperties().getMessageId());
    }

    /** A header's value (text or a number). */
    static KeyExtractor header(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("header name must not be blank, but was '" + name + "'");
        }
        return delivery -> {
            Map<String, Object> headers = delivery.getProperties().getHeaders();
            Object value = headers == null ? null : headers.get(name);
            if (value instanceof LongString || value instanceof String || value instanceof Number) {
                return nonBlank(value.toString());
            }
            if (value instanceof byte[] bytes) {
                return nonBlank(new String(bytes, StandardCharsets.UTF_8));
            }
            return Optional.empty();
        };
    }

    /** A top-level field of a JSON object body, {@code message_id} then {@code id}, as in the seed. */
    static KeyExtractor jsonBody() {
        return jsonBody("message_id", "id");
    }

    /** The first of these top-level fields of a JSON object body that holds a string or a number. */
    static KeyExtractor jsonBody(String... fields) {
        List<String> names = List.of(fields);
        if (names.isEmpty()) {
            throw new IllegalArgumentException("jsonBody needs at least one field name");
        }
        return delivery -> {
            Map<String, String> found = JsonFields.topLevelScalars(delivery.getBody());
            for (String name : names) {
                Optional<String> id = nonBlank(found.get(name));
                if (id.isPresent()) {
                    return id;
                }
            }
            return Optional.empty();
        };
    }

    private static Optional<String> nonBlank(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
    }
}
