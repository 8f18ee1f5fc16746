package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.LongString;

import io.github.once.rabbitmq.KeyExtractor;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Date;
import java.util.List;
import java.util.Map;

/** An id from a header: text, UTF-8 bytes or a number; anything else is named in the reason. */
public final class HeaderKey {
    private HeaderKey() {
    }

    public static KeyExtractor.Lookup lookup(Delivery delivery, String name) {
        Map<String, Object> headers = delivery.getProperties().getHeaders();
        if (headers == null || !headers.containsKey(name)) {
            return KeyExtractor.Lookup.missing("header " + name + " is absent");
        }
        Object value = headers.get(name);
        String text;
        if (value instanceof String || value instanceof LongString) {
            text = value.toString();
        } else if (value instanceof byte[] bytes) {
            try {
                // Strict: lenient decoding would turn different bytes into the same replacement characters.
                text = StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
            } catch (CharacterCodingException e) {
                return KeyExtractor.Lookup.missing("header " + name + " is bytes that are not UTF-8 text");
            }
        } else if (value instanceof Number number) {
            return number(name, number);
        } else {
            return KeyExtractor.Lookup.missing("header " + name + " is " + kind(value) + ", not text or a number");
        }
        return text.isBlank() ? KeyExtractor.Lookup.missing("header " + name + " is blank") : KeyExtractor.Lookup.found(text);
    }

    private static KeyExtractor.Lookup number(String name, Number number) {
        BigDecimal value;
        if (number instanceof Double || number instanceof Float) {
            double d = number.doubleValue();
            if (!Double.isFinite(d)) {
                return KeyExtractor.Lookup.missing("header " + name + " is " + d + ", not a finite number");
            }
            value = new BigDecimal(number.toString());
        } else if (number instanceof BigDecimal decimal) {
            value = decimal;
        } else {
            value = new BigDecimal(number.toString()); // byte, short, int, long, BigInteger
        }
        return KeyExtractor.Lookup.found(CanonicalNumber.of(value));
    }

    private static String kind(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof Boolean) {
            return "a boolean";
        }
        if (value instanceof Map) {
            return "a table";
        }
        if (value instanceof List) {
            return "an array";
        }
        if (value instanceof Date) {
            return "a timestamp";
        }
        return "a " + value.getClass().getSimpleName();
    }
}
