package io.github.once.micrometer.internal;

import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.StoreFullException;
import io.github.once.StoreUnavailableException;

import java.util.Locale;

/** Tag values: lower-case words joined by hyphens, the same for every meter and every log line. */
final class Names {
    private Names() {
    }

    static final String PROCESSED = "processed";
    static final String DUPLICATE = "duplicate";
    static final String BUSY = "busy";
    static final String CONFLICT = "conflict";
    static final String FAILED = "failed";
    static final String LEASE_LOST = "lease-lost";
    static final String CRASH_LOOP = "crash-loop";

    /** Every outcome tag value, in a fixed order. */
    static final String[] OUTCOMES = {PROCESSED, DUPLICATE, BUSY, CONFLICT, FAILED, LEASE_LOST, CRASH_LOOP};

    /** An enum constant as a tag value: {@code RETRIED_LEASE_LOST} becomes {@code retried-lease-lost}. */
    static String of(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static int outcomeIndex(Outcome<?> outcome) {
        // Java 17 has no pattern switch: the chain covers every permitted Outcome.
        if (outcome instanceof Outcome.Processed) {
            return 0;
        } else if (outcome instanceof Outcome.Duplicate) {
            return 1;
        } else if (outcome instanceof Outcome.Busy) {
            return 2;
        } else if (outcome instanceof Outcome.Conflict) {
            return 3;
        } else if (outcome instanceof Outcome.Failed) {
            return 4;
        } else if (outcome instanceof Outcome.LeaseLost) {
            return 5;
        }
        return 6;
    }

    /** Why a store call failed: it could not be reached, it is full, or it refused the call. */
    static String errorKind(Throwable failure) {
        if (failure instanceof StoreUnavailableException) {
            return "unavailable";
        } else if (failure instanceof StoreFullException) {
            return "full";
        }
        return "rejected";
    }

    static String operation(OnceListener.StoreOperation operation) {
        return of(operation);
    }
}
