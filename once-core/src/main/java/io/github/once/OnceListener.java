package io.github.once;

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
}
