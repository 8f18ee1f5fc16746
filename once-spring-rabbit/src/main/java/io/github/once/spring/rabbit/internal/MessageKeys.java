package io.github.once.spring.rabbit.internal;

import com.rabbitmq.client.Delivery;

import io.github.once.rabbitmq.KeyExtractor;

import java.math.BigDecimal;
import java.util.Map;
import java.util.Objects;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.support.converter.MessageConverter;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.Expression;
import org.springframework.expression.PropertyAccessor;
import org.springframework.expression.TypedValue;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.DataBindingPropertyAccessor;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * The key extractor of {@code @Once(key = ...)}: a SpEL expression over Spring's view of a message. It is a
 * {@link KeyExtractor}, so the once-rabbitmq ones ({@code messageId()}, {@code header(..)}, {@code jsonBody(..)})
 * combine with it through {@link KeyExtractor#orElse}.
 */
public final class MessageKeys {
    private static final SpelExpressionParser PARSER = new SpelExpressionParser();

    private MessageKeys() {
    }

    /**
     * The value of a SpEL expression on the message, read-only: {@code payload} (converted by {@code converter},
     * once per message), {@code headers}, {@code messageId}, {@code messageProperties}, {@code body}.
     */
    public static KeyExtractor expression(String expression, MessageConverter converter) {
        Objects.requireNonNull(converter, "converter");
        Expression parsed = PARSER.parseExpression(requireText(expression, "expression"));
        EvaluationContext context = SimpleEvaluationContext
                .forPropertyAccessors(new MapEntries(), DataBindingPropertyAccessor.forReadOnlyAccess())
                .withInstanceMethods().build();
        return KeyExtractor.of(delivery -> {
            Object value;
            try {
                value = parsed.getValue(context, new KeyRoot(message(delivery), converter));
            } catch (RuntimeException e) {
                return KeyExtractor.Lookup.missing("expression " + expression + " failed: " + e.getMessage());
            }
            return id(value, "expression " + expression);
        });
    }

    private static KeyExtractor.Lookup id(Object value, String what) {
        if (value == null) {
            return KeyExtractor.Lookup.missing(what + " is null");
        }
        String id;
        if (value instanceof BigDecimal decimal) {
            id = decimal.stripTrailingZeros().toPlainString();
        } else if (value instanceof Number || value instanceof CharSequence || value instanceof java.util.UUID) {
            id = value.toString();
        } else {
            return KeyExtractor.Lookup.missing(what + " is a " + value.getClass().getSimpleName() + ", not an id");
        }
        return id.isBlank() ? KeyExtractor.Lookup.missing(what + " is blank") : KeyExtractor.Lookup.found(id);
    }

    static Message message(Delivery delivery) {
        if (delivery instanceof SpringDelivery spring) {
            return spring.message();
        }
        return new Message(delivery.getBody(), SpringDelivery.PROPERTIES.toMessageProperties(
                delivery.getProperties(), delivery.getEnvelope(), "UTF-8"));
    }

    private static String requireText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must not be blank, but was '" + value + "'");
        }
        return value;
    }

    /**
     * Reads a map's entries as properties ({@code payload.order_id} on a JSON object), read-only. Spring's own
     * map accessor changed package between Framework 6.2 and 7, so both Boot lines get this one.
     */
    private static final class MapEntries implements PropertyAccessor {
        @Override
        public Class<?>[] getSpecificTargetClasses() {
            return new Class<?>[] {Map.class};
        }

        @Override
        public boolean canRead(EvaluationContext context, Object target, String name) {
            return target instanceof Map<?, ?> map && map.containsKey(name);
        }

        @Override
        public TypedValue read(EvaluationContext context, Object target, String name) {
            return new TypedValue(((Map<?, ?>) target).get(name));
        }

        @Override
        public boolean canWrite(EvaluationContext context, Object target, String name) {
            return false;
        }

        @Override
        public void write(EvaluationContext context, Object target, String name, Object newValue) {
            throw new UnsupportedOperationException("key expressions are read-only");
        }
    }

    /** What a key expression sees. */
    public static final class KeyRoot {
        private final Message message;
        private final MessageConverter converter;
        private Object payload;
        private boolean converted;

        KeyRoot(Message message, MessageConverter converter) {
            this.message = message;
            this.converter = converter;
        }

        public Object getPayload() {
            if (!converted) {
                payload = converter.fromMessage(message);
                converted = true;
            }
            return payload;
        }

        public Map<String, Object> getHeaders() {
            return message.getMessageProperties().getHeaders();
        }

        public String getMessageId() {
            return message.getMessageProperties().getMessageId();
        }

        public Object getMessageProperties() {
            return message.getMessageProperties();
        }

        public byte[] getBody() {
            return message.getBody();
        }
    }
}
