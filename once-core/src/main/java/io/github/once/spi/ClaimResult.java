package io.github.once.spi;

import io.github.once.IdempotencyRecord;

import java.time.Instant;
import java.util.Objects;

/** The answer to a claim. Every answer is a value; only an unreachable store is an exception. */
public sealed interface ClaimResult {

    /** The key was absent, released or its lease had expired: the caller owns it now. */
    record Acquired(Lease lease) implements ClaimResult {
        public Acquired {
            Objects.requireNonNull(lease, "lease");
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
