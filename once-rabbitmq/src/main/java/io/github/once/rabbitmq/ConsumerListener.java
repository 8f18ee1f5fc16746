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
}
