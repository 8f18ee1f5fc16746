package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.OnceListener;

import java.time.Duration;

/** One way of keeping records, with a business effect counted apart from the records. */
interface StoreVariant extends AutoCloseable {

    /** A new executor, as one consumer process would have. */
    Idempotency executor(Duration lease);

    /** A new executor whose listener is {@code listener}; variants that cannot take one say so. */
    default Idempotency executor(Duration lease, OnceListener listener) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " takes no executor listener");
    }

    /** The business effect of handling message {@code id}. */
    void effect(String id, DeliveryContext context) throws Exception;

    int effects(String id);

    long totalEffects();

    long distinctEffects();

    /** Ends an executor as a killed process would: no more renewals, its store connections gone. */
    default void kill(Idempotency executor) {
        executor.close();
    }

    static IdempotencyConfig config(Duration lease) {
        return IdempotencyConfig.builder().leaseDuration(lease).retention(Duration.ofMinutes(10)).build();
    }

    @Override
    default void close() throws Exception {
    }
}
