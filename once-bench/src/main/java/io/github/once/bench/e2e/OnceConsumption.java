package io.github.once.bench.e2e;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.Idempotency;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.MessageHandler;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.Topology;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Once's RabbitMQ adapter ({@link OnceConsumer}) over an executor: the same effect as the baseline, guarded by
 * a claim and a recorded completion. Latency runs from the adapter taking a delivery in hand to its ack.
 */
final class OnceConsumption implements Consumption {

    private final OnceConsumer consumer;
    private final AutoCloseable resources;

    private OnceConsumption(OnceConsumer consumer, AutoCloseable resources) {
        this.consumer = consumer;
        this.resources = resources;
    }

    static Consumption start(Variant.Run run, Idempotency executor, Variant.Mode mode,
                             AutoCloseable resources) throws Exception {
        return start(run, executor, mode, resources, ConsumerListener.NONE);
    }

    /** As above, with {@code extra} hearing the consumer too (the meters of the "with meters" variant). */
    static Consumption start(Variant.Run run, Idempotency executor, Variant.Mode mode,
                             AutoCloseable resources, ConsumerListener extra) throws Exception {
        Meter meter = run.meter();
        return start(run, executor, mode, resources, extra, (delivery, context) -> meter.effect());
    }

    /** As above, with {@code effect} as the handler (the JDBC variants write a row). */
    static Consumption start(Variant.Run run, Idempotency executor, Variant.Mode mode,
                             AutoCloseable resources, ConsumerListener extra, MessageHandler effect) throws Exception {
        Meter meter = run.meter();
        long[] deliveredAt = new long[meter.capacity()];
        AtomicReference<String> unexpected = new AtomicReference<>();
        ConsumerListener listener = new ConsumerListener() {
            @Override
            public void onDelivery(Delivery delivery, int attempt) {
                int index = index(delivery);
                deliveredAt[index] = meter.delivered(index);
            }

            @Override
            public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
                if (action != ConsumerAction.PROCESSED) {
                    unexpected.compareAndSet(null, action + " for message " + key);
                    meter.fail(unexpected.get());
                    return;
                }
                meter.acked(deliveredAt[index(delivery)]);
            }
        };
        OnceConsumer.Builder builder = OnceConsumer.builder(run.connection(), run.queue(), executor)
                .namespace(run.namespace())
                .prefetch(run.prefetch())
                .channels(run.channels())
                .batchClaims(mode == Variant.Mode.BATCH)
                .topology(Topology.none())
                .listener(listener)
                .listener(extra)
                .handler(effect);
        if (run.maxBatch() > 0) {
            builder.maxBatch(run.maxBatch());
        }
        OnceConsumer consumer = builder.build();
        consumer.start();
        return new OnceConsumption(consumer, () -> {
            executor.close();
            resources.close();
        });
    }

    private static int index(Delivery delivery) {
        return Integer.parseInt(delivery.getProperties().getMessageId());
    }

    @Override
    public void close() {
        try {
            consumer.close();
        } finally {
            try {
                resources.close();
            } catch (Exception e) {
                throw new IllegalStateException("could not close the store of a Once variant", e);
            }
        }
    }
}
