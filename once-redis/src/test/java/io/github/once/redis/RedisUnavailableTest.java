package io.github.once.redis;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.RecordState;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Redis that stops answering (a frozen server process), goes away, or is not there: every call raises
 * {@link StoreUnavailableException} within the configured timeout, never hangs and never answers wrongly; the
 * store works again once Redis is back.
 */
class RedisUnavailableTest {

    private static final Duration TIMEOUT = Duration.ofMillis(400);
    /** The timeout plus room for a loaded machine; far below what a hang would take. */
    private static final Duration BOUND = TIMEOUT.plusMillis(2_100);
    private static final Duration LEASE = Duration.ofMinutes(1);
    private static final Duration RETENTION = Duration.ofHours(1);

    private RedisServer server;
    private RedisIdempotencyStore store;
    private final String namespace = "u" + UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void start() {
        server = RedisServer.start();
        store = RedisServer.connect(RedisIdempotencyStore.builder().uri(server.uri())
                .clientResources(SharedRedis.RESOURCES).timeout(TIMEOUT));
    }

    @AfterEach
    void stop() {
        if (store != null) {
            store.close();
        }
        server.close();
    }

    private ClaimRequest request(String id) {
        return new ClaimRequest(IdempotencyKey.of(namespace, id), "fp", LEASE, RETENTION);
    }

    private static void assertUnavailableWithinTimeout(ThrowingCallable call) {
        long started = System.nanoTime();
        assertThatThrownBy(call).isInstanceOf(StoreUnavailableException.class);
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        assertThat(took).as("time to give up").isLessThan(BOUND);
    }

    @Test
    void frozenServerTimesOutEveryOperation() {
        Lease lease = ((ClaimResult.Acquired) store.claim(request("held"))).lease();
        server.pause();
        try {
            assertUnavailableWithinTimeout(() -> store.claim(request("while-frozen")));
            assertUnavailableWithinTimeout(() -> store.claimAll(List.of(request("batch-1"), request("batch-2"))));
            assertUnavailableWithinTimeout(() -> store.renew(lease, LEASE));
            assertUnavailableWithinTimeout(() -> store.complete(lease, new byte[] {1}, RETENTION));
            assertUnavailableWithinTimeout(() -> store.release(lease));
            assertUnavailableWithinTimeout(() -> store.find(lease.key()));
        } finally {
            server.resume();
        }

        // Back to normal on the same connection.
        assertThat(store.claim(request("after"))).isInstanceOf(ClaimResult.Acquired.class);
    }

    /**
     * Asynchronous calls to a frozen server return at once, before any answer, and fail with
     * {@link StoreUnavailableException} within the timeout, as the synchronous ones throw it.
     */
    @Test
    void frozenServerFailsAsyncCallsWithinTheTimeout() {
        Lease lease = ((ClaimResult.Acquired) store.claim(request("held-async"))).lease();
        server.pause();
        try {
            long started = System.nanoTime();
            CompletableFuture<?> claims = store.claimAllAsync(List.of(request("a-1"), request("a-2")))
                    .toCompletableFuture();
            CompletableFuture<?> completions = store.completeAllAsync(
                    List.of(new Completion(lease, new byte[] {1}, RETENTION))).toCompletableFuture();
            assertThat(claims).as("claims as the call returned, before Redis could answer").isNotDone();
            assertThat(completions).as("completions as the call returned").isNotDone();

            assertFailsUnavailableWithinTimeout(claims, started);
            assertFailsUnavailableWithinTimeout(completions, started);
        } finally {
            server.resume();
        }

        assertThat(store.claimAllAsync(List.of(request("after-async"))).toCompletableFuture().join())
                .hasExactlyElementsOfTypes(ClaimResult.Acquired.class);
    }

    @Test
    void stoppedServerFailsAsyncCalls() {
        assertThat(store.claim(request("before-async"))).isInstanceOf(ClaimResult.Acquired.class);
        server.close();

        long started = System.nanoTime();
        assertFailsUnavailableWithinTimeout(store.claimAllAsync(List.of(request("after-stop-async")))
                .toCompletableFuture(), started);
    }

    /** The stage fails with StoreUnavailableException itself (not wrapped) within the bound from {@code started}. */
    private static void assertFailsUnavailableWithinTimeout(CompletableFuture<?> stage, long started) {
        Throwable failure = await().atMost(BOUND).until(() -> stage.handle((value, e) -> e).getNow(null),
                e -> e != null);
        assertThat(failure).isInstanceOf(StoreUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("time to give up").isLessThan(BOUND);
    }

    /**
     * A claim that timed out was already on its way: the frozen server runs it when it wakes. The caller never
     * saw "acquired", so nobody works on the key; the record holds it until its lease lapses and then any
     * consumer takes it over.
     */
    @Test
    void claimThatTimedOutMayStillTakeEffectAndLapsesWithItsLease() {
        server.pause();
        try {
            assertUnavailableWithinTimeout(() -> store.claim(
                    new ClaimRequest(IdempotencyKey.of(namespace, "late"), "fp", Duration.ofMillis(300), RETENTION)));
        } finally {
            server.resume();
        }
        IdempotencyKey key = IdempotencyKey.of(namespace, "late");

        IdempotencyRecord record = store.find(key).orElseThrow();

        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                .until(() -> store.claim(request("late")) instanceof ClaimResult.Acquired);
    }

    @Test
    void stoppedServerIsUnavailable() {
        assertThat(store.claim(request("before"))).isInstanceOf(ClaimResult.Acquired.class);
        server.close();

        assertUnavailableWithinTimeout(() -> store.claim(request("after-stop")));
        assertUnavailableWithinTimeout(() -> store.claimAll(List.of(request("after-stop-batch"))));
    }

    @Test
    void nothingListeningFailsTheBuildQuickly() {
        int port = RedisServer.spareRedisPort(false);
        assertUnavailableWithinTimeout(() -> RedisIdempotencyStore.builder().uri("redis://127.0.0.1:" + port)
                .clientResources(SharedRedis.RESOURCES).timeout(TIMEOUT).build());
    }

    @Test
    void frozenServerFailsTheBuildWithinTheTimeout() {
        server.pause();
        try {
            assertUnavailableWithinTimeout(() -> RedisIdempotencyStore.builder().uri(server.uri())
                    .clientResources(SharedRedis.RESOURCES).timeout(TIMEOUT).build());
        } finally {
            server.resume();
        }
    }
}
