package io.github.once.redis;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.ResultCodec;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The seed's two Redis traps, replayed with separate consumers (each its own store and connection) on the shared
 * Redis: the check-then-lock race (trap 1) and a fixed lock shorter than the work (trap 2).
 */
class RedisSeedTrapsTest {

    private final String prefix = SharedRedis.randomPrefix();
    private final String namespace = "trap" + UUID.randomUUID().toString().substring(0, 8);
    private final List<AutoCloseable> closeables = new ArrayList<>();

    private Idempotency consumer(Duration lease) {
        RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(SharedRedis.URI)
                .clientResources(SharedRedis.RESOURCES).keyPrefix(prefix).build();
        Idempotency once = Idempotency.builder(store)
                .config(IdempotencyConfig.builder().leaseDuration(lease).build()).build();
        closeables.add(once);
        closeables.add(store);
        return once;
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
        SharedRedis.deleteKeys(prefix);
    }

    /** Trap 1: eight consumers get the same message at once; the claim is one atomic step, so one runs it. */
    @Test
    void regressionCheckThenLockRace() throws Exception {
        int consumers = 8;
        List<Idempotency> all = new ArrayList<>();
        for (int i = 0; i < consumers; i++) {
            all.add(consumer(Duration.ofSeconds(30)));
        }
        IdempotencyKey key = IdempotencyKey.of(namespace, "order-7");
        byte[] body = "deduct stock".getBytes(StandardCharsets.UTF_8);
        AtomicInteger deductions = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(consumers);
        List<Future<Outcome<String>>> outcomes = new ArrayList<>();
        try {
            for (Idempotency once : all) {
                outcomes.add(pool.submit(() -> {
                    start.await();
                    return once.execute(key, body, ResultCodec.utf8(), ctx -> {
                        deductions.incrementAndGet();
                        return "deducted";
                    });
                }));
            }
            start.countDown();
            int processed = 0;
            for (Future<Outcome<String>> f : outcomes) {
                Outcome<String> outcome = f.get(30, TimeUnit.SECONDS);
                assertThat(outcome).isInstanceOfAny(Outcome.Processed.class, Outcome.Busy.class,
                        Outcome.Duplicate.class);
                processed += outcome instanceof Outcome.Processed ? 1 : 0;
            }
            assertThat(processed).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
        assertThat(deductions).hasValue(1);
    }

    /**
     * Trap 2: the work takes three times the lease. The executor renews the lease while the handler runs (every
     * third of it), so a second consumer polling all along is kept out, and afterwards sees a duplicate. The lease
     * is 2 s so that only a stall of over a second on the renewing thread could let it lapse.
     */
    @Test
    void regressionLockShorterThanTheWork() throws Exception {
        Duration lease = Duration.ofSeconds(2);
        Idempotency slow = consumer(lease);
        Idempotency eager = consumer(lease);
        IdempotencyKey key = IdempotencyKey.of(namespace, "payment-9");
        byte[] body = "charge".getBytes(StandardCharsets.UTF_8);
        AtomicInteger charges = new AtomicInteger();
        AtomicBoolean working = new AtomicBoolean();
        CountDownLatch finish = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Outcome<String>> first = pool.submit(() -> slow.execute(key, body, ResultCodec.utf8(), ctx -> {
                charges.incrementAndGet();
                working.set(true);
                finish.await(30, TimeUnit.SECONDS);
                return "charged";
            }));
            await().atMost(Duration.ofSeconds(10)).untilTrue(working);

            long until = System.nanoTime() + lease.multipliedBy(3).toNanos();
            int polls = 0;
            while (System.nanoTime() < until) {
                Outcome<String> second = eager.execute(key, body, ResultCodec.utf8(), ctx -> {
                    charges.incrementAndGet();
                    return "charged twice";
                });
                assertThat(second).as("second consumer while the first works").isInstanceOf(Outcome.Busy.class);
                polls++;
                long next = System.nanoTime() + 50_000_000L;
                await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(10))
                        .until(() -> System.nanoTime() >= next);
            }
            finish.countDown();

            assertThat(first.get(30, TimeUnit.SECONDS)).isInstanceOf(Outcome.Processed.class);
            assertThat(polls).isGreaterThan(5);
        } finally {
            finish.countDown();
            pool.shutdownNow();
        }
        assertThat(eager.execute(key, body, ResultCodec.utf8(), ctx -> "again")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(charges).hasValue(1);
    }
}
