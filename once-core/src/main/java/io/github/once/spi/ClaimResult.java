package io.github.once.spi;

import io.github.once.IdempotencyRecord;

import java.time.Instant;
import java.util.Objects;

/** The answer to a claim. Every answer is a value; only an unreachable store is an exception. */
public sealed interface ClaimResult {

    /**
     * The key was absent, released or its lease had expired: the caller owns it now. {@code takeovers} counts the
     * claims in a row that took this record over from an owner whose lease lapsed without a completion or a
     * release (an owner that most likely died in its handler), this one included: 0 for a fresh, expired,
     * released or completed-then-expired record, 1 for the first takeover, and so on. The executor dead-letters
     * a key taken over too often ({@link io.github.once.Outcome.CrashLoop}).
     */
    record Acquired(Lease lease, int takeovers) implements ClaimResult {
        public Acquired {
            Objects.requireNonNull(lease, "lease");
            if (takeovers < 0) {
                throw new IllegalArgumentException("takeovers must not be negative, but was " + takeovers);
            }
        }

        /** A claim of a fresh or released key. */
        public Acquired(Lease lease) {
            this(lease, 0);
        }
    }

    /** Another owner holds a live lease until {@code leaseUntil} (store clock). */
    record Busy(Instant leaseUntil) implements ClaimResult {
        public Busy {
            Objects.requireNonNull(leaseUntil, "leaseUntil");
        }
    }

    /** The work was already completed; the record carries the stored result. */
    record Duplicate(IdempotencyRecord record) implements ClaimResult {
        public Duplicate {
            Objects.requireNonNull(record, "record");
        }
    }

    /** The key is known with a different payload fingerprint: the same id was reused for other content. */
    record Conflict(IdempotencyRecord record) implements ClaimResult {
        public Conflict {
            Objects.requireNonNull(record, "record");
        }
    }
}
