package io.github.once.micrometer;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.DeadLetterReason;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The consumer's and the executor's meters, driven by a real {@link OnceConsumer} on the real RabbitMQ. */
class ConsumerMetersTest {

    private static final RetryPolicy ONE_ATTEMPT =
            RetryPolicy.builder().maxAttempts(1).backoff(Duration.ofMillis(50)).build();

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final OnceMeters meters = OnceMeters.builder(registry).build();

    private double count(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    private OnceConsumer start(Rabbit rabbit, Idempotency once) throws Exception {
        ConsumerListener consumerMeters = meters.consumer(rabbit.queue);
        OnceConsumer consumer = rabbit.track(OnceConsumer.builder(rabbit.connection(), rabbit.queue, once)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .retry(rabbit.retry)
                .storeBackoff(Duration.ofMillis(100), Duration.ofMillis(200))
                .listener(consumerMeters)
                .handler((d, ctx) -> {
                })
                .build());
        meters.inFlight(consumer);
        return consumer.start();
    }

    @Test
    void hundredMessagesWithTenSentTwiceCountTenDuplicatesAndEveryAck() throws Exception {
        try (Rabbit rabbit = new Rabbit(ONE_ATTEMPT)) {
            Idempotency once = rabbit.track(Idempotency.builder(InMemoryIdempotencyStore.builder().build())
                    .listener(meters.executor(rabbit.queue)).build());
            OnceConsumer consumer = start(rabbit, once);
            Set<String> ids = new HashSet<>();
            for (int i = 0; i < 100; i++) {
                ids.add("order-" + i);
                rabbit.publish("order-" + i, "body");
                if (i < 10) {
                    rabbit.publish("order-" + i, "body");
                }
            }
            rabbit.publish(null, "no key");
            rabbit.publish("order-0", "other content");

            String q = rabbit.queue;
            await().atMost(Duration.ofSeconds(20)).until(() ->
                    count("once.consumer.actions", "queue", q, "action", "dead-lettered") == 2
                            && count("once.consumer.acks", "queue", q) == 112);
            await().atMost(Duration.ofSeconds(5)).until(() -> consumer.inFlight() == 0);

            assertThat(count("once.outcomes", "namespace", q, "outcome", "processed")).isEqualTo(100);
            assertThat(count("once.outcomes", "namespace", q, "outcome", "duplicate")).isEqualTo(10);
            assertThat(count("once.outcomes", "namespace", q, "outcome", "conflict")).isEqualTo(1);
            assertThat(count("once.consumer.deliveries", "queue", q)).isEqualTo(112);
            assertThat(count("once.consumer.actions", "queue", q, "action", "processed")).isEqualTo(100);
            assertThat(count("once.consumer.actions", "queue", q, "action", "duplicate")).isEqualTo(10);
            assertThat(count("once.consumer.actions", "queue", q, "action", "requeued")).isZero();
            // The consumer reports its dead letters by reason and its batches itself.
            assertThat(count("once.consumer.dead.letters", "queue", q, "reason", "missing-key")).isEqualTo(1);
            assertThat(count("once.consumer.dead.letters", "queue", q, "reason", "conflict")).isEqualTo(1);
            assertThat(registry.get("once.consumer.batch.size").tag("queue", q).summary().totalAmount())
                    .isEqualTo(112);
            // Every keyed delivery is claimed once (the keyless message never reaches the store), in as many calls as
            // the consumer's batches took.
            assertThat(registry.get("once.store.batch.size").tags("namespace", q, "operation", "claim").summary()
                    .totalAmount()).isEqualTo(111);
            assertThat(registry.get("once.store.calls").tags("namespace", q, "operation", "claim").timer().count())
                    .isBetween(1L, 111L);
            assertThat(registry.get("once.consumer.in.flight").tag("queue", q).gauge().value()).isZero();
            assertThat(registry.get("once.consumer.paused").tag("queue", q).gauge().value()).isZero();
            assertNoKeyInTags(ids);
        }
    }

    @Test
    void aStoreOutagePausesAndResumesAndTheTimePausedIsCounted() throws Exception {
        try (Rabbit rabbit = new Rabbit(ONE_ATTEMPT)) {
            StoreClock store = new StoreClock();
            Idempotency once = rabbit.track(Idempotency.builder(InMemoryIdempotencyStore.builder().clock(store).build())
                    .listener(meters.executor(rabbit.queue)).build());
            start(rabbit, once);
            String q = rabbit.queue;

            store.down(true);
            rabbit.publish("order-1", "body");
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    registry.get("once.consumer.paused").tag("queue", q).gauge().value() == 1);
            assertThat(count("once.consumer.pauses", "queue", q)).isPositive();
            assertThat(count("once.store.errors", "namespace", q, "operation", "claim", "kind", "unavailable"))
                    .isPositive();

            store.down(false);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    count("once.consumer.actions", "queue", q, "action", "processed") == 1);
            assertThat(registry.get("once.consumer.paused").tag("queue", q).gauge().value()).isZero();
            assertThat(count("once.consumer.resumes", "queue", q)).isEqualTo(1);
            assertThat(count("once.consumer.actions", "queue", q, "action", "requeued")).isPositive();
            assertThat(registry.get("once.consumer.paused.time").tag("queue", q).functionCounter().count())
                    .isPositive();
        }
    }

    @Test
    void deadLetterRetryAndBatchEventsFeedTheirMeters() {
        ConsumerListener listener = meters.consumer("orders");
        Delivery d = new Delivery(new Envelope(1, false, "", "orders"),
                new AMQP.BasicProperties.Builder().messageId("m-1").build(), "x".getBytes(StandardCharsets.UTF_8));
        IdempotencyKey key = IdempotencyKey.of("orders", "m-1");

        assertThat(registry.find("once.consumer.dead.letters").tag("queue", "orders").counters())
                .hasSize(DeadLetterReason.values().length).allSatisfy(c -> assertThat(c.count()).isZero());
        listener.onDeadLetter(d, key, DeadLetterReason.CONFLICT, null, null);
        listener.onDeadLetter(d, null, DeadLetterReason.MISSING_KEY, null, null);
        listener.onRetry(d, key, ConsumerAction.RETRIED_FAILED, 2, Duration.ofSeconds(1), null);
        listener.onRetry(d, key, ConsumerAction.RETRIED_FAILED, 3, Duration.ofSeconds(5), null);
        listener.onRetry(d, key, ConsumerAction.RETRIED_BUSY, 1, Duration.ofSeconds(5), null);
        listener.onBatch(10);
        listener.onBatch(30);

        assertThat(count("once.consumer.dead.letters", "queue", "orders", "reason", "conflict")).isEqualTo(1);
        assertThat(count("once.consumer.dead.letters", "queue", "orders", "reason", "missing-key")).isEqualTo(1);
        assertThat(count("once.consumer.retries", "cause", "failed", "level", "1000")).isEqualTo(1);
        assertThat(count("once.consumer.retries", "cause", "failed", "level", "5000")).isEqualTo(1);
        assertThat(count("once.consumer.retries", "cause", "busy", "level", "5000")).isEqualTo(1);
        assertThat(registry.get("once.consumer.batch.size").tag("queue", "orders").summary().mean()).isEqualTo(20);
        assertNoKeyInTags(Set.of("m-1"));
    }

    private void assertNoKeyInTags(Set<String> ids) {
        for (Meter meter : registry.getMeters()) {
            for (Tag tag : meter.getId().getTags()) {
                assertThat(ids).as("tag %s of %s", tag.getKey(), meter.getId().getName())
                        .doesNotContain(tag.getValue());
            }
        }
    }
}
