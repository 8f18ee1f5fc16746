package io.github.once;

import io.github.once.spi.Lease;

import java.time.Duration;

/**
 * Hears what an executor does, for metrics and logs. Called on the executing thread: keep it fast and never
 * throw (a throwing listener is logged and ignored).
 */
public interface OnceListener {

    OnceListener NONE = new OnceListener() {
    };

    /** One execution ended with {@code outcome} after {@code elapsed} (claim to completion). */
    default void onOutcome(Outcome<?> outcome, Duration elapsed) {
    }

    /** One store call took {@code elapsed}; {@code failure} is null when it succeeded. */
    default void onStoreCall(StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
    }

    /**
     * A handler returned ({@code failure} null) or threw, after running for {@code elapsed}. Called right after
     * the handler, before its completion is recorded or its key given back, in every scope.
     */
    default void onHandler(IdempotencyKey key, Duration elapsed, Throwable failure) {
    }

    /**
     * A claim took over {@code lease}'s key from an owner whose lease had lapsed without completing or releasing
     * it: that owner most likely died while its handler ran.
     */
    default void onTakeover(Lease lease) {
    }

    /**
     * A renewal of {@code lease} ended: renewed, refused ({@code renewed} false, no failure: the lease was taken
     * over) or failed ({@code failure} set: the store could not be asked; the renewal is tried again).
     */
    default void onRenewal(Lease lease, boolean renewed, Throwable failure) {
    }

    /**
     * The store calls an executor makes, as reported to {@link OnceListener#onStoreCall} with the number of keys in
     * the call (a batch claims or completes many keys in one call).
     */
    enum StoreOperation {
        /** Claims one key or a batch of keys. */
        CLAIM,
        /** Records the completions of one key or a batch. */
        COMPLETE,
        /** Gives one key back after a failed handler. */
        RELEASE,
        /** Extends one lease while its handler runs. */
        RENEW
    }
}
