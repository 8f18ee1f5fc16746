package io.github.once.rabbitmq;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import io.github.once.PayloadFingerprint;
import io.github.once.rabbitmq.internal.CanonicalNumber;
import io.github.once.rabbitmq.internal.JsonPaths;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A payload fingerprint over chosen fields of a JSON body, so a re-send that differs only elsewhere (another
 * {@code sent_at}, fields in another order, other whitespace) is a duplicate, not a {@code conflict}:
 *
 * <pre>{@code
 * IdempotencyConfig.builder().fingerprint(JsonFingerprint.fields("/order_id", "/amount")).build()
 * }</pre>
 *
 * Fields are named as in {@link KeyExtractor#jsonBody(String...)}: a top-level name or a JSON Pointer. The
 * fingerprint is the SHA-256 of a canonical JSON text of the chosen values: objects with their members sorted by
 * name (the first of a repeated name counts), numbers normalised as keys are ({@code 12.0} is {@code 12}), no
 * whitespace. A string and a number are different content ({@code "12"} is not {@code 12}); an absent field
 * differs from a null one. A body that is not JSON up to the chosen fields is fingerprinted by its bytes, like
 * {@link PayloadFingerprint#SHA_256}. The body is read as a stream, up to the last chosen field.
 */
public final class JsonFingerprint implements PayloadFingerprint {

    /** JSON null inside a chosen value (a TreeMap's null would read as "no member"). */
    private static final Object NULL = new Object();
    /** A chosen field that the body does not have. */
    private static final Object ABSENT = new Object();

    private final JsonPaths paths;

    private JsonFingerprint(JsonPaths paths) {
        this.paths = paths;
    }

    /**
     * The fingerprint over these fields.
     *
     * @throws IllegalArgumentException as {@link KeyExtractor#jsonBody(String...)} does for its fields
     */
    public static JsonFingerprint fields(String... fields) {
        return new JsonFingerprint(JsonPaths.of(fields));
    }

    @Override
    public String of(byte[] payload) {
        Chosen chosen = new Chosen(paths.size());
        try {
            if (payload != null && payload.length > 0 && paths.scan(payload, chosen)) {
                return SHA_256.of(canonical(chosen.values));
            }
        } catch (IOException | RuntimeException e) {
            // Not JSON (or beyond the read limits): the bytes themselves are the content.
        }
        return SHA_256.of(payload == null ? new byte[0] : payload);
    }

    /** {@code {"<field>":<value>,...}} in the order the fields were given, absent ones left out. */
    private byte[] canonical(Object[] values) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = JsonPaths.JSON.createGenerator(out)) {
            g.writeStartObject();
            for (int i = 0; i < values.length; i++) {
                if (values[i] != ABSENT) {
                    g.writeFieldName(paths.label(i));
                    write(g, values[i]);
                }
            }
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException("writing to memory failed", e); // a ByteArrayOutputStream does not fail
        }
        return out.toByteArray();
    }

    private static void write(JsonGenerator g, Object value) throws IOException {
        if (value instanceof Map<?, ?> members) {
            g.writeStartObject();
            for (Map.Entry<?, ?> member : members.entrySet()) {
                g.writeFieldName((String) member.getKey());
                write(g, member.getValue());
            }
            g.writeEndObject();
        } else if (value instanceof List<?> elements) {
            g.writeStartArray();
            for (Object element : elements) {
                write(g, element);
            }
            g.writeEndArray();
        } else if (value instanceof String text) {
            g.writeString(text);
        } else if (value instanceof NumberText number) {
            g.writeNumber(number.text());
        } else if (value instanceof Boolean flag) {
            g.writeBoolean(flag);
        } else {
            g.writeNull();
        }
    }

    /** A number in its canonical text, kept apart from a string with the same text. */
    private record NumberText(String text) {
    }

    /** Reads one value whole; recursion is bounded by the parser's nesting limit. */
    private static Object read(JsonParser parser) throws IOException {
        JsonToken token = parser.currentToken();
        switch (token) {
            case START_OBJECT: {
                Map<String, Object> members = new TreeMap<>();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    members.putIfAbsent(name, read(parser));
                }
                return members;
            }
            case START_ARRAY: {
                List<Object> elements = new ArrayList<>();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    elements.add(read(parser));
                }
                return elements;
            }
            case VALUE_STRING:
                return parser.getText();
            case VALUE_NUMBER_INT:
            case VALUE_NUMBER_FLOAT:
                try {
                    return new NumberText(CanonicalNumber.of(parser));
                } catch (NumberFormatException e) {
                    return new NumberText(parser.getText()); // beyond BigDecimal: the literal as written
                }
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            default:
                return NULL;
        }
    }

    /** Collects the chosen values; the pass stops when each is read or known absent. */
    private static final class Chosen implements JsonPaths.Visitor {
        private final Object[] values;
        private int settled;

        Chosen(int size) {
            values = new Object[size];
        }

        @Override
        public boolean value(int path, JsonParser parser) throws IOException {
            values[path] = read(parser);
            return ++settled == values.length;
        }

        @Override
        public boolean missing(int path, String why) {
            values[path] = ABSENT;
            return ++settled == values.length;
        }
    }

    @Override
    public String toString() {
        return "JsonFingerprint.fields(" + paths + ")";
    }
}
