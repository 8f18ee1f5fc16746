package io.github.once.spi;

import io.github.once.IdempotencyKey;

import java.time.Instant;
import java.util.Objects;

/**
 * The right to work on one key: the key, the fencing token that proves ownership, and the deadline (by the
 * store's clock) after which another consumer may take the key over with a greater token.
 */
public record Lease(IdempotencyKey key, long token, Instant deadline) {
    public Lease {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(deadline, "deadline");
        if (token <= 0) {
            throw new IllegalArgumentException("token must be positive, but was " + token);
        }
    }
}
