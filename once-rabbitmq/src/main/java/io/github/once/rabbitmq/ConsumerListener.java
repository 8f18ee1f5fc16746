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
     * confirmed). {@code key} is null for {@link DeadLetterReason#MISSING_KEY} and {@link DeadLetterReason#INVALID_KEY},
     * whose {@code detail} says why (such as {@code body field order_id is null}; null for other reasons);
     * {@code cause} is the handler's last failure, or null.
     */
    default void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable cause,
                              String detail) {
    }

    /**
     * The delivery's copy was sent to a delay queue: {@code action} says why (busy, lease lost, failed); it comes
     * back as attempt {@code nextAttempt} after {@code delay}. {@code error} is the handler's failure, or null
     * when it did not fail (busy, lease lost).
     */
    default void onRetry(Delivery delivery, IdempotencyKey key, ConsumerAction action, int nextAttempt,
                         Duration delay, Throwable error) {
    }

    /**
     * The consumer of {@code queue} started, recording in {@code store} with {@code config}. Called once, before
     * the first delivery.
     */
    default void onStart(String queue, String store, ConsumerConfig config) {
    }

    /** The connection to the broker at {@code broker} was lost; {@code recovering}: the client recovers it itself. */
    default void onConnectionLost(String broker, Throwable cause, boolean recovering) {
    }

    /** The client recovered the connection to {@code broker} after {@code lost}. */
    default void onConnectionRecovered(String broker, Duration lost) {
    }

    /** {@code size} deliveries were taken in hand together (one executor call; 1 without batch claims). */
    default void onBatch(int size) {
    }
}
