package io.github.once;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Lease;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class IdempotencyTest {

    private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().build();
    private final List<Outcome<?>> heard = new ArrayList<>();
    private final List<OnceListener.StoreOperation> calls = new ArrayList<>();
    /** Each store call as operation and key count, such as {@code CLAIM 3}. */
    private final List<String> sized = new ArrayList<>();
    private final OnceListener listener = new OnceListener() {
        @Override
        public synchronized void onOutcome(Outcome<?> outcome, Duration elapsed) {
            heard.add(outcome);
        }

        @Override
        public synchronized void onStoreCall(OnceListener.StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
            calls.add(operation);
            sized.add(operation + " " + keys);
        }
    };
    private Idempotency once = Idempotency.builder(store).listener(listener).build();

    @AfterEach
    void close() {
        once.close();
    }

    private static byte[] body(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void runsOnceAndAnswersDuplicatesWithTheStoredResult() {
        IdempotencyKey key = IdempotencyKey.of("orders", "m-1");
        AtomicInteger effects = new AtomicInteger();

        Outcome<String> first = once.execute(key, body("{}"), ResultCodec.utf8(), ctx -> "receipt-" + effects.incrementAndGet());
        Outcome<String> second = once.execute(key, body("{}"), ResultCodec.utf8(), ctx -> "receipt-" + effects.incrementAndGet());

        assertThat(first).isInstanceOf(Outcome.Processed.class);
        assertThat(((Outcome.Processed<String>) first).result()).isEqualTo("receipt-1");
        assertThat(second).isInstanceOf(Outcome.Duplicate.class);
        assertThat(((Outcome.Duplicate<String>) second).result()).isEqualTo("receipt-1");
        assertThat(effects).hasValue(1);
        assertThat(heard).hasSize(2);
        assertThat(calls).containsExactly(OnceListener.StoreOperation.CLAIM, OnceListener.StoreOperation.COMPLETE, OnceListener.StoreOperation.CLAIM);
    }

    @Test
    void aFailedHandlerReleasesTheKeySoARetryRuns() {
        IdempotencyKey key = IdempotencyKey.of("orders", "m-2");
        AtomicInteger attempts = new AtomicInteger();
        List<Long> tokens = new CopyOnWriteArrayList<>();
        Handler<String> flaky = ctx -> {
            tokens.add(ctx.fencingToken());
            if (attempts.incrementAndGet() == 1) {
                throw new IOException("payment gateway timed out");
            }
            return "ok";
        };

        Outcome<String> failed = once.execute(key, body("x"), ResultCodec.utf8(), flaky);
        Outcome<String> retried = once.execute(key, body("x"), ResultCodec.utf8(), flaky);

        assertThat(failed).isInstanceOf(Outcome.Failed.class);
        assertThat(((Outcome.Failed<String>) failed).cause()).hasMessage("payment gateway timed out");
        assertThat(retried).isInstanceOf(Outcome.Processed.class);
        assertThat(attempts).hasValue(2);
        // The release keeps the key's fencing counter: the retry holds a newer token than the failed attempt.
        assertThat(tokens.get(1)).isGreaterThan(tokens.get(0));
        assertThat(((Outcome.Processed<String>) retried).token()).isEqualTo(tokens.get(1));
        assertThat(OneKey.find(store, key).orElseThrow().token()).isEqualTo(tokens.get(1));
    }

    @Test
    void anotherPayloadUnderTheSameIdIsAConflict() {
        IdempotencyKey key = IdempotencyKey.of("orders", "m-3");
        once.execute(key, body("amount=10"), ResultCodec.none(), ctx -> null);

        Outcome<Void> reused = once.execute(key, body("amount=99"), ResultCodec.none(), ctx -> {
            throw new AssertionError("must not run");
        });

        assertThat(reused).isInstanceOf(Outcome.Conflict.class);
    }

    @Test
    void fingerprintsCanBeTurnedOff() {
        Idempotency lax = Idempotency.builder(store)
                .config(IdempotencyConfig.builder().fingerprint(PayloadFingerprint.NONE).build()).build();
        IdempotencyKey key = IdempotencyKey.of("orders", "m-4");
        lax.execute(key, body("a"), ResultCodec.none(), ctx -> null);

        assertThat(lax.execute(key, body("b"), ResultCodec.none(), ctx -> null)).isInstanceOf(Outcome.Duplicate.class);
        lax.close();
    }

    @Test
    void theLeaseIsRenewedWhileALongHandlerRuns() throws Exception {
        once.close();
        once = Idempotency.builder(store)
                // Renewed every 500 ms: only a stall of the renewing thread of over a second lets it lapse.
                .config(IdempotencyConfig.builder().leaseDuration(Duration.ofMillis(1_500)).build()).build();
        IdempotencyKey key = IdempotencyKey.of("orders", "m-5");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        CompletableFuture<Outcome<String>> running = CompletableFuture.supplyAsync(() ->
                once.execute(key, body("x"), ResultCodec.utf8(), ctx -> {
                    started.countDown();
                    finish.await();
                    return "done";
                }));
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

        // Well past three original leases, a second consumer still finds the key busy.
        long until = System.nanoTime() + Duration.ofMillis(4_500).toNanos();
        int busyAnswers = 0;
        while (System.nanoTime() < until) {
            ClaimResult second = OneKey.claim(store, new ClaimRequest(key, null, Duration.ofSeconds(30), Duration.ofHours(1)));
            assertThat(second).isInstanceOf(ClaimResult.Busy.class);
            busyAnswers++;
            long next = System.nanoTime() + Duration.ofMillis(50).toNanos(); // pace the probes, leave the CPU to renewal
            await().atMost(Duration.ofSeconds(1)).pollInterval(Duration.ofMillis(10)).until(() -> System.nanoTime() >= next);
        }
        finish.countDown();

        assertThat(busyAnswers).isPositive();
        assertThat(running.get(5, TimeUnit.SECONDS)).isInstanceOf(Outcome.Processed.class);
    }

    @Test
    void aStaleOwnerIsToldItLostTheLease() {
        MutableClock clock = new MutableClock();
        InMemoryIdempotencyStore timed = InMemoryIdempotencyStore.builder().clock(clock).build();
        Idempotency executor = Idempotency.builder(timed).clock(clock).build();
        IdempotencyKey key = IdempotencyKey.of("orders", "m-6");
        AtomicInteger effects = new AtomicInteger();
        Lease[] taker = new Lease[1];

        Outcome<String> stale = executor.execute(key, body("x"), ResultCodec.utf8(), ctx -> {
            effects.incrementAndGet();
            clock.advance(Duration.ofSeconds(31)); // the lease lapses while we work...
            ClaimResult other = OneKey.claim(timed, new ClaimRequest(key, null, Duration.ofSeconds(30), Duration.ofHours(1)));
            taker[0] = ((ClaimResult.Acquired) other).lease(); // ...and another consumer takes the key over
            return "stale";
        });

        assertThat(stale).isInstanceOf(Outcome.LeaseLost.class);
        assertThat(taker[0].token()).isGreaterThan(((Outcome.LeaseLost<String>) stale).lostLease().token());
        assertThat(OneKey.find(timed, key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(OneKey.complete(timed, taker[0], body("fresh"), Duration.ofHours(1))).isTrue();
        assertThat(OneKey.find(timed, key).orElseThrow().result()).isEqualTo(body("fresh"));
        executor.close();
    }

    @Test
    void executeAllClaimsTheBatchInOneCallAndAnswersEachTask() {
        IdempotencyKey done = IdempotencyKey.of("orders", "b-done");
        once.execute(done, body("x"), ResultCodec.utf8(), ctx -> "earlier");
        calls.clear();
        sized.clear();
        AtomicInteger effects = new AtomicInteger();
        List<Task<String>> tasks = List.of(
                new Task<>(IdempotencyKey.of("orders", "b-1"), body("x"), ResultCodec.utf8(), ctx -> "r" + effects.incrementAndGet()),
                new Task<>(done, body("x"), ResultCodec.utf8(), ctx -> "r" + effects.incrementAndGet()),
                new Task<>(IdempotencyKey.of("orders", "b-2"), body("x"), ResultCodec.utf8(), ctx -> {
                    throw new IllegalStateException("boom");
                }));

        List<Outcome<String>> outcomes = once.executeAll(tasks);

        assertThat(outcomes.get(0)).isInstanceOf(Outcome.Processed.class);
        assertThat(outcomes.get(1)).isInstanceOf(Outcome.Duplicate.class);
        assertThat(((Outcome.Duplicate<String>) outcomes.get(1)).result()).isEqualTo("earlier");
        assertThat(outcomes.get(2)).isInstanceOf(Outcome.Failed.class);
        assertThat(effects).hasValue(1);
        // One claim call for the batch, the failed key given back, one completion call for what succeeded.
        assertThat(sized).containsExactly("CLAIM 3", "RELEASE 1", "COMPLETE 1");
        assertThat(OneKey.find(store, IdempotencyKey.of("orders", "b-1")).orElseThrow().result()).isEqualTo(body("r1"));
    }

    @Test
    void aThrowingListenerChangesNothing() {
        Idempotency noisy = Idempotency.builder(store).listener(new OnceListener() {
            @Override
            public void onOutcome(Outcome<?> outcome, Duration elapsed) {
                throw new IllegalStateException("metrics backend down");
            }
        }).build();

        Outcome<String> outcome = noisy.execute(IdempotencyKey.of("orders", "m-7"), body("x"), ResultCodec.utf8(), ctx -> "ok");

        assertThat(outcome).isInstanceOf(Outcome.Processed.class);
        noisy.close();
    }

    @Test
    void theHandlerSeesItsKeyAndFencingToken() {
        IdempotencyKey key = IdempotencyKey.of("orders", "m-8");
        long[] token = new long[1];

        Outcome<Void> outcome = once.execute(key, body("x"), ResultCodec.none(), ctx -> {
            assertThat(ctx.key()).isEqualTo(key);
            assertThat(ctx.leaseHeld()).isTrue();
            token[0] = ctx.fencingToken();
            return null;
        });

        assertThat(((Outcome.Processed<Void>) outcome).token()).isEqualTo(token[0]);
        assertThat(OneKey.find(store, key).orElseThrow().token()).isEqualTo(token[0]);
    }
}
