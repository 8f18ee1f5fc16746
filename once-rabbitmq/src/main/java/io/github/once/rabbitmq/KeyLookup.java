package io.github.once.rabbitmq;

import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link KeyExtractor} made of one delivery: the id it found, or why there is none. The consumer puts a
 * {@link Missing#detail()} on the dead-lettered copy (header {@link OnceHeaders#DETAIL}), so a {@code missing-key}
 * message says what to fix.
 */
public sealed interface KeyLookup permits KeyLookup.Found, KeyLookup.Missing {

    /** Longest detail kept; a longer one is cut, so a header can never grow with the body. */
    int MAX_DETAIL_LENGTH = 1000;

    /** The id, or empty when it is missing. */
    Optional<String> toOptional();

    static KeyLookup found(String id) {
        return new Found(id);
    }

    static KeyLookup missing(String detail) {
        return new Missing(detail);
    }

    /** An id that is not blank. */
    record Found(String id) implements KeyLookup {
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
    record Missing(String detail) implements KeyLookup {
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
