package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;

import java.time.Duration;

/**
 * Hears what an {@link OnceConsumer} does, for metrics and logs (the ratio of duplicates, pauses). Called on
 * consumer threads: keep it fast; a throwing listener is logged and ignored.
 */
public interface ConsumerListener {

    ConsumerListener NONE = new ConsumerListener() {
    };

    /** A delivery arrived and is about to be handled. */
    default void onDelivery(Delivery delivery, int attempt) {
    }

    /** A delivery was settled; {@code key} is null when none could be extracted. */
    default void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
    }

    /** Consumption stopped because the store (or the broker, for moves) could not be reached. */
    default void onPause(Throwable cause, Duration backoff) {
    }

    /** Consumption resumed after a pause. */
    default void onResume() {
    }

    /**
     * The delivery's copy was sent to the dead-letter queue (its {@link #onAction} follows once the copy is
     * confirmed). {@code key} is null for {@link DeadLetterReason#MISSING_KEY} and {@link DeadLetterReason#INVALID_KEY};
     * {@code cause} is the handler's last failure, or null.
     */
    default void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable cause) {
    }

    /**
     * The delivery's copy was sent to a delay queue: {@code action} says why (busy, lease lost, failed); it comes
     * back as attempt {@code nextAttempt} after {@code delay}.
     */
    default void onRetry(Delivery delivery, IdempotencyKey key, ConsumerAction action, int nextAttempt,
                         Duration delay) {
    }

    /** {@code size} deliveries were taken in hand together (one executor call; 1 without batch claims). */
    default void onBatch(int size) {
    }
}
