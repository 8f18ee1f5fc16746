package io.github.once.redis;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.RecordState;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

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
        Lease lease = ((ClaimResult.Acquired) StoreCalls.claim(store, request("held"))).lease();
        server.pause();
        try {
            assertUnavailableWithinTimeout(() -> StoreCalls.claim(store, request("while-frozen")));
            assertUnavailableWithinTimeout(() -> store.claim(List.of(request("batch-1"), request("batch-2"))));
            assertUnavailableWithinTimeout(() -> store.renew(lease, LEASE));
            assertUnavailableWithinTimeout(() -> StoreCalls.complete(store, lease, new byte[] {1}, RETENTION));
            assertUnavailableWithinTimeout(() -> store.release(lease));
            assertUnavailableWithinTimeout(() -> StoreCalls.find(store, lease.key()));
        } finally {
            server.resume();
        }

        // Back to normal on the same connection.
        assertThat(StoreCalls.claim(store, request("after"))).isInstanceOf(ClaimResult.Acquired.class);
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
            assertUnavailableWithinTimeout(() -> StoreCalls.claim(store,
                    new ClaimRequest(IdempotencyKey.of(namespace, "late"), "fp", Duration.ofMillis(300), RETENTION)));
        } finally {
            server.resume();
        }
        IdempotencyKey key = IdempotencyKey.of(namespace, "late");

        IdempotencyRecord record = StoreCalls.find(store, key).orElseThrow();

        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                .until(() -> StoreCalls.claim(store, request("late")) instanceof ClaimResult.Acquired);
    }

    @Test
    void stoppedServerIsUnavailable() {
        assertThat(StoreCalls.claim(store, request("before"))).isInstanceOf(ClaimResult.Acquired.class);
        server.close();

        assertUnavailableWithinTimeout(() -> StoreCalls.claim(store, request("after-stop")));
        assertUnavailableWithinTimeout(() -> store.claim(List.of(request("after-stop-batch"))));
    }

    /** Redis not there yet: the store builds quickly, each call is unavailable, and it connects once Redis runs. */
    @Test
    void nothingListeningAtBuildMakesEachCallUnavailableUntilRedisRuns() {
        int port = RedisServer.spareRedisPort(false);
        long started = System.nanoTime();
        try (RedisIdempotencyStore early = RedisIdempotencyStore.builder().uri("redis://127.0.0.1:" + port)
                .clientResources(SharedRedis.RESOURCES).timeout(TIMEOUT).build()) {
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("time to build").isLessThan(BOUND);
            assertUnavailableWithinTimeout(() -> StoreCalls.claim(early, request("before-start")));
            assertUnavailableWithinTimeout(early::verify);

            try (RedisServer late = RedisServer.start(port)) {
                await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(StoreUnavailableException.class)
                        .until(() -> StoreCalls.claim(early, request("after-start")) instanceof ClaimResult.Acquired);
                early.verify();
            }
        }
    }

    /** A frozen Redis at build: the store still builds within the timeout, and works once Redis wakes. */
    @Test
    void frozenServerAtBuildBuildsWithinTheTimeoutAndConnectsWhenItWakes() {
        server.pause();
        RedisIdempotencyStore early;
        try {
            long started = System.nanoTime();
            early = RedisIdempotencyStore.builder().uri(server.uri()).clientResources(SharedRedis.RESOURCES)
                    .timeout(TIMEOUT).build();
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("time to build").isLessThan(BOUND);
            assertUnavailableWithinTimeout(() -> StoreCalls.claim(early, request("while-frozen")));
        } finally {
            server.resume();
        }
        try (early) {
            await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(StoreUnavailableException.class)
                    .until(() -> StoreCalls.claim(early, request("after-wake")) instanceof ClaimResult.Acquired);
        }
    }
}
