package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.rabbitmq.internal.HeaderKey;
import io.github.once.rabbitmq.internal.JsonBodyKey;
import io.github.once.rabbitmq.internal.JsonPaths;
import io.github.once.rabbitmq.internal.LookupExtractor;

import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * Finds a message's idempotency id. Combine with {@link #orElse}, for example
 * {@code messageId().orElse(jsonBody("order_id"))}. A message with no id is never processed unguarded: it goes
 * to the dead-letter queue with reason {@code missing-key} and a detail that says why ({@link #lookup}).
 *
 * <h2>Ids from a JSON body</h2>
 * {@link #jsonBody(String...)} takes top-level field names ({@code "order_id"}) and JSON Pointers (RFC 6901,
 * {@code "/order/id"}, {@code "/items/0/sku"}): an argument that starts with {@code /} is a pointer, any other
 * is a field name. Only strings and numbers are ids; null, booleans, objects and arrays are not, and the detail
 * says which one was found. The body is read as a stream, only as far as the id is settled: subtrees off the
 * paths are skipped, nothing after the id is read (so a body broken after its id still yields the id), and no
 * tree of the body is built. When a field appears twice, the first one counts.
 *
 * <h2>Numbers</h2>
 * A number gives the same id however it is written: {@code 12}, {@code 12.0}, {@code 1.2e1} and {@code 12.000}
 * all give {@code 12}; {@code -0} gives {@code 0}; other decimals give their shortest plain form ({@code 12.50}
 * gives {@code 12.5}, {@code 1e-3} gives {@code 0.001}), that is {@code BigDecimal.stripTrailingZeros()
 * .toPlainString()}, except numbers more than 100 places from the decimal point ({@code 1e400}), which keep
 * the scientific form of {@code stripTrailingZeros().toString()} ({@code 1E+400}) so no huge text is made. A
 * string holding the same text gives the same id as the number: {@code "12"} and {@code 12} are one key.
 * Numeric headers follow the same rule.
 */
@FunctionalInterface
public interface KeyExtractor {

    /** The id, or empty when this extractor finds none (blank values count as none). */
    Optional<String> extract(Delivery delivery);

    /**
     * The id, or why there is none. The built-in extractors say exactly why; for an extractor written as a
     * lambda over {@link #extract} the reason is generic ({@code key extractor found no id}), and an exception it
     * throws is reported as the reason rather than thrown. Write your own with {@link #of} to give reasons.
     */
    default Lookup lookup(Delivery delivery) {
        Optional<String> id;
        try {
            id = extract(delivery);
        } catch (RuntimeException e) {
            return Lookup.missing("key extractor failed: " + e);
        }
        if (id == null || id.isEmpty()) {
            return Lookup.missing("key extractor found no id");
        }
        return id.get().isBlank() ? Lookup.missing("key extractor returned a blank id") : Lookup.found(id.get());
    }

    /** This extractor's id, or when it has none the next one's; when neither has one, both reasons. */
    default KeyExtractor orElse(KeyExtractor next) {
        Objects.requireNonNull(next, "next");
        KeyExtractor first = this;
        return new LookupExtractor(first + ".orElse(" + next + ")", delivery -> {
            Lookup found = first.lookup(delivery);
            if (found instanceof Lookup.Missing missing) {
                Lookup other = next.lookup(delivery);
                return other instanceof Lookup.Missing otherMissing ? missing.and(otherMissing) : other;
            }
            return found;
        });
    }

    /** An extractor that says why it found no id: return {@link Lookup#missing(String)} with a reason. */
    static KeyExtractor of(Function<Delivery, Lookup> lookup) {
        Objects.requireNonNull(lookup, "lookup");
        return new LookupExtractor("KeyExtractor.of(" + lookup + ")", lookup);
    }

    /** The AMQP {@code message_id} property. The default. */
    static KeyExtractor messageId() {
        return new LookupExtractor("messageId()", delivery -> {
            String id = delivery.getProperties().getMessageId();
            if (id == null) {
                return Lookup.missing("message_id property is absent");
            }
            return id.isBlank() ? Lookup.missing("message_id property is blank") : Lookup.found(id);
        });
    }

    /**
     * A header's value: text (UTF-8 if bytes) or a number (normalised as in the class description). Any other
     * type (a boolean, a table, an array, a timestamp) is not an id.
     */
    static KeyExtractor header(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("header name must not be blank, but was '" + name + "'");
        }
        return new LookupExtractor("header(" + name + ")", delivery -> HeaderKey.lookup(delivery, name));
    }

    /** The top-level field {@code message_id}, then {@code id}, of a JSON object body. */
    static KeyExtractor jsonBody() {
        return jsonBody("message_id", "id");
    }

    /**
     * The first of these fields of a JSON body that holds a string or a number: top-level names
     * ({@code "order_id"}) or JSON Pointers ({@code "/order/id"}); see the class description. The body is read
     * once for all of them.
     *
     * @throws IllegalArgumentException when none is given, one is blank or the root pointer {@code ""}, a pointer
     *                                  is malformed, or one path lies inside another
     */
    static KeyExtractor jsonBody(String... fields) {
        JsonPaths paths = JsonPaths.of(fields);
        return new LookupExtractor("jsonBody(" + paths + ")",
                delivery -> JsonBodyKey.lookup(paths, delivery.getBody()));
    }

    /**
     * The first of these JSON Pointers (RFC 6901) that holds a string or a number, such as {@code "/order/id"}:
     * {@link #jsonBody(String...)} with pointers only.
     *
     * @throws IllegalArgumentException when an argument does not start with {@code /}, or as for jsonBody
     */
    static KeyExtractor jsonPointer(String... pointers) {
        for (String pointer : Objects.requireNonNull(pointers, "pointers")) {
            if (pointer == null || !pointer.startsWith("/")) {
                throw new IllegalArgumentException("a JSON Pointer starts with '/', but was '" + pointer + "'");
            }
        }
        return jsonBody(pointers);
    }

    /**
     * What a {@link KeyExtractor} made of one delivery: the id it found, or why there is none. The consumer puts a
     * {@link Missing#detail()} on the dead-lettered copy (header {@link OnceHeaders#DETAIL}), so a {@code missing-key}
     * message says what to fix.
     */
    public sealed interface Lookup permits Lookup.Found, Lookup.Missing {

        /** Longest detail kept; a longer one is cut, so a header can never grow with the body. */
        int MAX_DETAIL_LENGTH = 1000;

        /** The id, or empty when it is missing. */
        Optional<String> toOptional();

        static Lookup found(String id) {
            return new Found(id);
        }

        static Lookup missing(String detail) {
            return new Missing(detail);
        }

        /** An id that is not blank. */
        record Found(String id) implements Lookup {
            public Found {
                Objects.requireNonNull(id, "id");
                if (id.isBlank()) {
                    throw new IllegalArgumentException("a found id must not be blank");
                }
            }

            @Override
            public Optional<String> toOptional() {
                return Optional.of(id);
            }
        }

        /**
         * No id, and why: for example {@code body field order_id is null} or {@code message_id property is absent;
         * body field order_id is absent} when extractors were combined with {@link KeyExtractor#orElse}.
         */
        record Missing(String detail) implements Lookup {
            public Missing {
                Objects.requireNonNull(detail, "detail");
                if (detail.length() > MAX_DETAIL_LENGTH) {
                    detail = detail.substring(0, MAX_DETAIL_LENGTH - 3) + "...";
                }
            }

            @Override
            public Optional<String> toOptional() {
                return Optional.empty();
            }

            /** This detail and the next one, as the consumer reports a chain of {@code orElse}. */
            Missing and(Missing next) {
                return new Missing(detail + "; " + next.detail);
            }
        }
    }
}
