package io.github.once.outbox;

import java.time.Duration;

/**
 * Hooks into what an {@link OutboxRelay} does, for meters and tests. Every method has an empty default, so an
 * implementation overrides only what it counts. Calls come from the relay's own thread: keep them quick, and never
 * let them throw (a throwing listener is logged and ignored).
 */
public interface OutboxListener {

    /** A listener that does nothing. */
    OutboxListener NONE = new OutboxListener() {
    };

    /** One claim took {@code size} rows (called for every claim that took at least one). */
    default void batch(int size) {
    }

    /**
     * The broker confirmed a message.
     *
     * @param commitToConfirm from the row's insert (for a short transaction, its commit) to the confirm; measured
     *                        on the database's clock up to the claim and on the relay's monotonic clock after it
     */
    default void published(String messageId, Duration commitToConfirm) {
    }

    /** A message was returned or refused and will be tried again after {@code delay}. */
    default void retried(String messageId, int attempt, String reason, Duration delay) {
    }

    /** A message was returned or refused too often: it stays in the table, parked, with the reason. */
    default void parked(String messageId, int attempts, String reason) {
    }

    /**
     * A message's fate is unknown (no confirm in time, or the connection was lost): it goes back to pending and is
     * sent again with the same message ID. Not counted as an attempt.
     */
    default void unconfirmed(String messageId, String reason) {
    }
}
