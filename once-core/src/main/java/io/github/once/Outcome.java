package io.github.once;

import io.github.once.spi.Lease;

import java.time.Instant;
import java.util.Objects;

/** What happened to one execution. Each case tells the caller exactly what to do with the message. */
public sealed interface Outcome<T> {

    IdempotencyKey key();

    /** The handler ran and its completion was recorded. Acknowledge. */
    record Processed<T>(IdempotencyKey key, T result, long token) implements Outcome<T> {
        public Processed {
            Objects.requireNonNull(key, "key");
        }
    }

    /** The work was done before; the handler did not run. Acknowledge (and re-send a stored reply if any). */
    record Duplicate<T>(IdempotencyKey key, T result, IdempotencyRecord record) implements Outcome<T> {
        public Duplicate {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(record, "record");
        }
    }

    /** Another consumer holds a live lease. Retry later; this is not a failed attempt. */
    record Busy<T>(IdempotencyKey key, Instant leaseUntil) implements Outcome<T> {
        public Busy {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(leaseUntil, "leaseUntil");
        }
    }

    /**
     * The key is known with another payload: the id was reused. Dead-letter; do not retry. {@code fingerprint} is
     * this payload's, to set beside the stored {@code record.fingerprint()} when telling what differed.
     */
    record Conflict<T>(IdempotencyKey key, IdempotencyRecord record, String fingerprint) implements Outcome<T> {
        public Conflict {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(record, "record");
        }
    }

    /**
     * The work could not be done or answered: the handler threw, the codec could not encode its result, its
     * encoded result is over {@link IdempotencyConfig#maxResultBytes()} (a {@link StoreRejectedException}), or the
     * stored result of a duplicate could not be decoded (written by another version, perhaps); {@code cause} is
     * what was thrown. No completion was recorded by this execution. A claim it took was released or rolled back
     * (or, if the store could not be reached, will lapse with its lease), so a redelivery can retry.
     */
    record Failed<T>(IdempotencyKey key, Throwable cause) implements Outcome<T> {
        public Failed {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(cause, "cause");
        }
    }

    /**
     * The lease was taken over while the handler ran: another owner holds a greater token and this completion
     * was refused. The handler's effect may have happened; the stale result was not recorded.
     */
    record LeaseLost<T>(IdempotencyKey key, Lease lostLease) implements Outcome<T> {
        public LeaseLost {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(lostLease, "lostLease");
        }
    }

    /**
     * The key's lease was taken over {@code takeovers} times in a row from owners that neither completed nor
     * released it, at least {@link IdempotencyConfig#crashLoopAfter()}: each owner most likely died in the
     * handler (out of memory, {@code System.exit}, a killed or crashed process). The handler did not run this
     * time and the key was released, so a later delivery starts a new count. Dead-letter; do not retry.
     */
    record CrashLoop<T>(IdempotencyKey key, int takeovers) implements Outcome<T> {
        public CrashLoop {
            Objects.requireNonNull(key, "key");
        }
    }
}
