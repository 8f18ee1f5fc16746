package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad settings fail at build time with the setting's name and value. */
class ConfigurationTest {

    @Test
    void retryPolicyChecksItsSettings() {
        assertThatThrownBy(() -> RetryPolicy.builder().maxAttempts(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxAttempts must be at least 1, but was 0");
        assertThatThrownBy(() -> RetryPolicy.builder().backoff(Duration.ofSeconds(5), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("must not decrease");
        assertThatThrownBy(() -> RetryPolicy.builder().backoff(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("backoff level");
        assertThatThrownBy(() -> RetryPolicy.builder().exponentialBackoff(Duration.ofSeconds(1), 0.5, 3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiplier");
    }

    @Test
    void retryPolicyPicksDelayLevels() {
        RetryPolicy p = RetryPolicy.builder().exponentialBackoff(Duration.ofSeconds(1), 5, 3).build();
        assertThat(p.backoff()).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(25));
        assertThat(p.delayAfterFailure(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(p.delayAfterFailure(2)).isEqualTo(Duration.ofSeconds(5));
        assertThat(p.delayAfterFailure(9)).isEqualTo(Duration.ofSeconds(25));
        assertThat(p.delayWhileBusy(Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(5));
        assertThat(p.delayWhileBusy(Duration.ofMinutes(3))).isEqualTo(Duration.ofSeconds(25));
        assertThat(RetryPolicy.from(p).maxAttempts(2).build().backoff()).isEqualTo(p.backoff());
        assertThat(RetryPolicy.defaults().backoff())
                .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30));
    }

    @Test
    void topologyNames() {
        assertThat(Topology.delayQueue("orders", Duration.ofSeconds(5))).isEqualTo("orders.once.delay.5000");
        assertThat(Topology.deadLetterQueue("orders")).isEqualTo("orders.once.dlq");
    }

    @Test
    void consumerBuilderChecksItsSettings() throws Exception {
        RabbitFixture rabbit = new RabbitFixture();
        try (Idempotency once = Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build()) {
            var connection = rabbit.connect();
            assertThatThrownBy(() -> OnceConsumer.builder(connection, "q", once).prefetch(0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("prefetch must be 1 to 65535, but was 0");
            assertThatThrownBy(() -> OnceConsumer.builder(connection, "q", once).channels(0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("channels");
            assertThatThrownBy(() -> OnceConsumer.builder(connection, "q", once).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("handler must be set");
            assertThatThrownBy(() -> OnceConsumer.builder(connection, "amq.gen/odd queue", once)
                    .handler((d, c) -> { }).build())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("set namespace(...)");
            assertThatThrownBy(() -> OnceConsumer.builder(connection, "q", once).namespace("bad ns"))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("namespace");
            assertThatThrownBy(() -> OnceConsumer.builder(connection, "q", once).storeBackoff(
                    Duration.ofSeconds(2), Duration.ofSeconds(1)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("storeBackoff");
            assertThatThrownBy(() -> OncePublisher.builder(connection).confirmTimeout(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("confirmTimeout");
        } finally {
            rabbit.close();
        }
    }

    @Test
    void consumerConfigDefaultsCopiesAndChecks() {
        ConsumerConfig d = ConsumerConfig.defaults();
        assertThat(d.prefetch()).isEqualTo(50);
        assertThat(d.channels()).isEqualTo(1);
        assertThat(d.batchClaims()).isTrue();
        assertThat(d.batchSize()).as("the prefetch, at most 100").isEqualTo(50);
        assertThat(ConsumerConfig.builder().batchClaims(false).build().batchSize())
                .as("without batch claims a batch is one delivery").isEqualTo(1);
        assertThat(d.retry()).isSameAs(RetryPolicy.defaults());
        assertThat(d.moveTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(d.shutdownTimeout()).isEqualTo(Duration.ofSeconds(30));
        assertThat(d.storeBackoff()).isEqualTo(Duration.ofMillis(200));
        assertThat(d.maxStoreBackoff()).isEqualTo(Duration.ofSeconds(10));
        assertThat(d.maxErrorLength()).isEqualTo(1000);
        assertThat(d.namespace()).isNull();

        ConsumerConfig batched = ConsumerConfig.builder().prefetch(300).batchClaims(true).build();
        assertThat(batched.batchSize()).isEqualTo(100);
        assertThat(ConsumerConfig.from(batched).maxBatch(500).build().batchSize()).isEqualTo(300);
        ConsumerConfig copy = ConsumerConfig.from(batched).maxBatch(20).namespace("payments").build();
        assertThat(copy.batchSize()).isEqualTo(20);
        assertThat(copy.prefetch()).isEqualTo(300);
        assertThat(copy.namespace()).isEqualTo("payments");
        assertThat(batched.maxBatch()).as("the base is unchanged").isZero();
        TestClock clock = new TestClock();
        assertThat(ConsumerConfig.from(copy).clock(clock).build().clock()).isSameAs(clock);

        assertThatThrownBy(() -> ConsumerConfig.builder().prefetch(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("prefetch must be 1 to 65535, but was 0");
        assertThatThrownBy(() -> ConsumerConfig.builder().channels(257))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("channels must be 1 to 256, but was 257");
        assertThatThrownBy(() -> ConsumerConfig.builder().maxBatch(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxBatch must be at least 1, but was 0");
        assertThatThrownBy(() -> ConsumerConfig.builder().moveTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("moveTimeout");
        assertThatThrownBy(() -> ConsumerConfig.builder().maxErrorLength(3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxErrorLength");
        assertThatThrownBy(() -> ConsumerConfig.builder().storeBackoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("storeBackoff");
        assertThatThrownBy(() -> ConsumerConfig.builder().namespace("bad ns"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("namespace");
    }

    @Test
    void consumerBuilderShortcutsFillItsConfig() throws Exception {
        RabbitFixture rabbit = new RabbitFixture();
        try (Idempotency once = Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build()) {
            var connection = rabbit.connect();
            ConsumerConfig base = ConsumerConfig.builder().prefetch(20).channels(2).namespace("payments").build();
            OnceConsumer consumer = OnceConsumer.builder(connection, "q", once)
                    .config(base)
                    .batchClaims(false)
                    .handler((d, c) -> { })
                    .build();
            assertThat(consumer.config().prefetch()).isEqualTo(20);
            assertThat(consumer.config().channels()).isEqualTo(2);
            assertThat(consumer.config().namespace()).isEqualTo("payments");
            assertThat(consumer.config().batchSize()).isEqualTo(1);
            assertThat(base.batchClaims()).as("the base is unchanged").isTrue();
            assertThat(base.batchSize()).isEqualTo(20);
        } finally {
            rabbit.close();
        }
    }
}
