package io.github.once.redis;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.ResultCodec;
import io.github.once.StoreUnavailableException;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The Redis store's honest gap: the effect and the completion record are two steps. A consumer that dies after
 * its handler's effect and before the completion reaches Redis leaves an in-progress record; once its lease
 * lapses a redelivery runs the effect again. The window is the completion call itself, measured here.
 */
class RedisCrashWindowTest {

    private final String prefix = SharedRedis.randomPrefix();
    private final String namespace = "cw" + UUID.randomUUID().toString().substring(0, 8);
    private final List<RedisIdempotencyStore> stores = new ArrayList<>();

    private RedisIdempotencyStore newStore() {
        RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(SharedRedis.URI)
                .clientResources(SharedRedis.RESOURCES).keyPrefix(prefix).build();
        stores.add(store);
        return store;
    }

    @AfterEach
    void cleanUp() {
        stores.forEach(RedisIdempotencyStore::close);
        SharedRedis.deleteKeys(prefix);
    }

    @Test
    void consumerLostAfterTheEffectBeforeTheRecordRepeatsTheEffectOnceTheLeaseLapses() {
        // Long enough that no scheduling stall of a loaded machine lets the lease lapse before the second try.
        IdempotencyConfig config = IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(3)).build();
        IdempotencyKey key = IdempotencyKey.of(namespace, "charge-1");
        byte[] payload = "charge 10 EUR".getBytes(StandardCharsets.UTF_8);
        AtomicInteger charges = new AtomicInteger();
        RedisIdempotencyStore first = newStore();
        RedisIdempotencyStore second = newStore();

        try (Idempotency consumerA = Idempotency.builder(first).config(config).build();
             Idempotency consumerB = Idempotency.builder(second).config(config).build()) {
            // Consumer A charges, then loses Redis before it can record the completion.
            assertThatThrownBy(() -> consumerA.execute(key, payload, ResultCodec.utf8(), ctx -> {
                charges.incrementAndGet();
                first.close();
                return "charged";
            })).isInstanceOf(StoreUnavailableException.class);

            // The redelivery is held off while A's lease lives, then runs the handler again.
            Outcome<String> meanwhile = consumerB.execute(key, payload, ResultCodec.utf8(), ctx -> {
                charges.incrementAndGet();
                return "charged";
            });
            assertThat(meanwhile).isInstanceOf(Outcome.Busy.class);
            Outcome<String> later = await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                    .until(() -> consumerB.execute(key, payload, ResultCodec.utf8(), ctx -> {
                        charges.incrementAndGet();
                        return "charged";
                    }), o -> !(o instanceof Outcome.Busy));

            assertThat(later).isInstanceOf(Outcome.Processed.class);
            assertThat(charges).as("effects of one message across the crash").hasValue(2);
            // From now on it is a duplicate.
            assertThat(consumerB.execute(key, payload, ResultCodec.utf8(), ctx -> "again"))
                    .isInstanceOf(Outcome.Duplicate.class);
        }
    }

    /**
     * What the window is made of: after its handler returns, each execution makes exactly one store call, the
     * completion, and nothing else (a completion that took longer than the store's timeout would have failed, so
     * that bound holds by construction and is not asserted). The percentiles it prints are a benchmark measurement
     * (docs/redis.md quotes them with this command), not asserted: they depend on the machine's load.
     */
    @Test
    void theWindowIsOneCompletionCall() {
        List<Duration> completions = Collections.synchronizedList(new ArrayList<>());
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        OnceListener listener = new OnceListener() {
            @Override
            public void onStoreCall(OnceListener.StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
                events.add(operation.name());
                if (operation == OnceListener.StoreOperation.COMPLETE && failure == null) {
                    completions.add(elapsed);
                }
            }
        };
        int runs = 500;
        List<String> expected = new ArrayList<>();
        try (Idempotency once = Idempotency.builder(newStore()).listener(listener).build()) {
            for (int i = 0; i < runs; i++) {
                once.execute(IdempotencyKey.of(namespace, "m" + i), new byte[] {1}, ResultCodec.utf8(), ctx -> {
                    events.add("handler returned");
                    return "ok";
                });
                expected.addAll(List.of("CLAIM", "handler returned", "COMPLETE"));
            }
        }
        assertThat(events).containsExactlyElementsOf(expected);
        List<Duration> sorted = new ArrayList<>(completions);
        Collections.sort(sorted);
        assertThat(sorted).hasSize(runs);
        Duration max = sorted.get(runs - 1);
        System.out.printf("Redis crash window (handler end to completion recorded), %d runs on 127.0.0.1: "
                + "p50=%d us, p99=%d us, max=%d us%n", runs, sorted.get(runs / 2).toNanos() / 1_000,
                sorted.get(runs * 99 / 100).toNanos() / 1_000, max.toNanos() / 1_000);
    }
}
