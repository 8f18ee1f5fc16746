package io.github.once.spi;

import io.github.once.RecordState;

import java.time.Instant;

/**
 * Where a record stands for an operator, by the store's clock: finer than {@link io.github.once.RecordState},
 * which a consumer needs, because an operator asks why a key is in progress.
 */
public enum RecordStanding {
    /** In progress under a live lease: a consumer is working on it now. */
    IN_PROGRESS,
    /**
     * In progress, but its owner gave the claim back (its handler failed) and the key waits for its retry; the
     * next delivery claims it at once. Only stores whose {@link StoreInspector#tellsReleasedFromLapsed()} is true
     * report it.
     */
    RELEASED,
    /**
     * In progress, and its lease ran out without a release: the owner died or stalled. A store that does not tell
     * released from lapsed reports a released record as lapsed too.
     */
    LAPSED,
    /** The work is done; the result is kept until the record expires. */
    COMPLETED;

    /**
     * The standing of a record inside its retention.
     *
     * @param state      its stored state
     * @param leaseUntil its lease deadline
     * @param now        the store's clock
     * @param released   whether the store saw its current claim released
     */
    public static RecordStanding of(RecordState state, Instant leaseUntil, Instant now, boolean released) {
        if (state == RecordState.COMPLETED) {
            return COMPLETED;
        }
        if (leaseUntil.isAfter(now)) {
            return IN_PROGRESS;
        }
        return released ? RELEASED : LAPSED;
    }
}
