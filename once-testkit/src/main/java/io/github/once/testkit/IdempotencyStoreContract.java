package io.github.once.testkit;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceException;
import io.github.once.RecordState;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.stream.Stream;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * The contract every {@link IdempotencyStore} must pass. Extend it, supply {@link #createStore()}, and run it
 * against the real service:
 *
 * <pre>{@code
 * class MyStoreTest extends IdempotencyStoreContract {
 *     protected IdempotencyStore createStore() { return new MyStore(...); }
 * }
 * }</pre>
 *
 * Each test works in a random namespace of its own, so runs may share one service. Leases and retentions are
 * short ({@link #shortLease()}); waits are bounded polls, never fixed sleeps.
 *
 * <p>Supply {@link #createFailingStore()} as well: a store of the same kind that cannot reach its service, to
 * check that it fails rather than answers.
 */
public abstract class IdempotencyStoreContract extends StoreContractBase {

    // ---------------------------------------------------------------- takeovers (crash loops)

    /** Claims {@code key} as soon as its current lease has lapsed; the acquired answer. */
    private ClaimResult.Acquired afterLapse(IdempotencyKey key, Duration lease) {
        ClaimResult taken = await().atMost(shortLease().multipliedBy(10)).pollInterval(Duration.ofMillis(25))
                .until(() -> StoreCalls.claim(store, request(key, "fp", lease)), r -> r instanceof ClaimResult.Acquired);
        return (ClaimResult.Acquired) taken;
    }

    /** Waits until {@code key}'s record is past its expiry, then claims it: a fresh key, no takeovers. */
    private void assertFreshOnceForgotten(IdempotencyKey key) {
        await().atMost(shortLease().multipliedBy(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> StoreCalls.find(store, key).isEmpty());
        assertThat(acquired(StoreCalls.claim(store, request(key, "fp", LONG))).takeovers()).isZero();
    }

    private ClaimResult.Acquired acquired(ClaimResult result) {
        assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
        return (ClaimResult.Acquired) result;
    }

    @Test
    @DisplayName("a fresh key is acquired with no takeovers")
    void freshKeyCountsNoTakeover() {
        assertThat(acquired(StoreCalls.claim(store, request(key("fresh-t"), "fp", LONG))).takeovers()).isZero();
    }

    @Test
    @DisplayName("each takeover of a lapsed lease nobody completed or released counts one more, atomically with the claim")
    void takeoverOfLapsedLeaseCounts() {
        IdempotencyKey key = key("crash-1");
        assertThat(acquired(StoreCalls.claim(store, request(key, "fp", shortLease()))).takeovers()).isZero();

        ClaimResult.Acquired first = afterLapse(key, shortLease());
        assertThat(first.takeovers()).isEqualTo(1);
        ClaimResult.Acquired second = afterLapse(key, shortLease());
        assertThat(second.takeovers()).isEqualTo(2);
        assertThat(second.lease().token()).isGreaterThan(first.lease().token());
        assertThat(StoreCalls.claim(store, request(key, "fp", LONG))).isInstanceOf(ClaimResult.Busy.class);
    }

    @Test
    @DisplayName("a claim after a release is no takeover and starts the count again")
    void releaseThenClaimCountsNone() {
        IdempotencyKey key = key("crash-2");
        acquire(key, "fp", shortLease());
        ClaimResult.Acquired taken = afterLapse(key, LONG);
        assertThat(taken.takeovers()).isEqualTo(1);
        assertThat(store.release(taken.lease())).isTrue();

        ClaimResult.Acquired again = acquired(StoreCalls.claim(store, request(key, "fp", shortLease())));
        assertThat(again.takeovers()).isZero();
        assertThat(afterLapse(key, LONG).takeovers()).as("the count starts again after a release").isEqualTo(1);
    }

    @Test
    @DisplayName("a completion ends the count: the key is a duplicate, and once forgotten it is fresh")
    void completionEndsCount() {
        IdempotencyKey key = key("crash-3");
        acquire(key, "fp", shortLease());
        ClaimResult.Acquired taken = afterLapse(key, LONG);
        assertThat(taken.takeovers()).isEqualTo(1);
        assertThat(StoreCalls.complete(store, taken.lease(), bytes("done"), shortLease())).isTrue();
        assertThat(StoreCalls.claim(store, request(key, "fp", LONG))).isInstanceOf(ClaimResult.Duplicate.class);

        assertFreshOnceForgotten(key);
    }

    @Test
    @DisplayName("a record past its expiry counts as fresh, even one left in progress")
    void expiredRecordCountsNone() {
        IdempotencyKey key = key("crash-4");
        acquire(key, "fp", shortLease());
        assertThat(afterLapse(key, shortLease()).takeovers()).isEqualTo(1);
        // Lapsed again, then forgotten: lease and retention both short.
        ClaimResult.Acquired shortLived = afterLapse(key, shortLease());
        assertThat(shortLived.takeovers()).isEqualTo(2);
        await().atMost(shortLease().multipliedBy(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> StoreCalls.claim(store, new ClaimRequest(key, "fp", shortLease(), shortLease()))
                        instanceof ClaimResult.Acquired a && a.takeovers() == 3);
        assertFreshOnceForgotten(key);
    }

    @Test
    @DisplayName("a batch of claims counts takeovers exactly as single claims do")
    void claimCountsTakeoversAsSingleClaims() {
        IdempotencyKey fresh = key("batch-t-fresh");
        IdempotencyKey lapsed = key("batch-t-lapsed");
        IdempotencyKey twice = key("batch-t-twice");
        IdempotencyKey released = key("batch-t-released");
        acquire(lapsed, "fp", shortLease());
        acquire(twice, "fp", shortLease());
        afterLapse(twice, shortLease());
        assertThat(store.release(acquire(released, "fp", LONG))).isTrue();
        Instant lapsedAll = Instant.now().plus(shortLease()).plusMillis(200);
        await().atMost(shortLease().multipliedBy(10)).until(() -> Instant.now().isAfter(lapsedAll));

        List<ClaimResult> results = store.claim(List.of(
                request(fresh, "fp", LONG),
                request(lapsed, "fp", LONG),
                request(twice, "fp", LONG),
                request(released, "fp", LONG)));

        assertThat(results).hasSize(4);
        assertThat(acquired(results.get(0)).takeovers()).isZero();
        assertThat(acquired(results.get(1)).takeovers()).isEqualTo(1);
        assertThat(acquired(results.get(2)).takeovers()).isEqualTo(2);
        assertThat(acquired(results.get(3)).takeovers()).isZero();
    }

    // ---------------------------------------------------------------- retention

    @Test
    @DisplayName("a completed record is forgotten after its retention")
    void completedRecordExpires() {
        IdempotencyKey key = key("retention-1");
        StoreCalls.complete(store, acquire(key), bytes("done"), shortLease());
        assertThat(StoreCalls.claim(store, request(key, "fp-1", LONG))).isInstanceOf(ClaimResult.Duplicate.class);

        await().atMost(shortLease().multipliedBy(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> StoreCalls.find(store, key).isEmpty());

        assertThat(StoreCalls.claim(store, request(key, "fp-1", LONG))).isInstanceOf(ClaimResult.Acquired.class);
    }

    // ---------------------------------------------------------------- batches

    @Test
    @DisplayName("a batch of claims answers exactly as single claims in order would")
    void claimMatchesSingleClaims() {
        IdempotencyKey fresh = key("batch-fresh");
        IdempotencyKey busy = key("batch-busy");
        IdempotencyKey done = key("batch-done");
        IdempotencyKey clash = key("batch-clash");
        IdempotencyKey twice = key("batch-twice");
        acquire(busy);
        StoreCalls.complete(store, acquire(done), bytes("r"), RETENTION);
        StoreCalls.complete(store, acquire(clash, "fp-a", LONG), bytes("r"), RETENTION);

        List<ClaimResult> results = store.claim(List.of(
                request(fresh, "fp-1", LONG),
                request(busy, "fp-1", LONG),
                request(done, "fp-1", LONG),
                request(clash, "fp-b", LONG),
                request(twice, "fp-1", LONG),
                request(twice, "fp-1", LONG)));

        assertThat(results).hasSize(6);
        assertThat(results.get(0)).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(results.get(1)).isInstanceOf(ClaimResult.Busy.class);
        assertThat(results.get(2)).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(((ClaimResult.Duplicate) results.get(2)).record().result()).isEqualTo(bytes("r"));
        assertThat(results.get(3)).isInstanceOf(ClaimResult.Conflict.class);
        assertThat(results.get(4)).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(results.get(5)).isInstanceOf(ClaimResult.Busy.class);
        Lease batchLease = ((ClaimResult.Acquired) results.get(0)).lease();
        assertThat(StoreCalls.complete(store, batchLease, bytes("ok"), RETENTION)).isTrue();
    }

    @Test
    @DisplayName("a batch of completions answers exactly as single completions in order would")
    void completeMatchesSingleCompletions() {
        Lease current = acquire(key("complete-all-current"));
        Lease stale = acquire(key("complete-all-stale"));
        Lease done = acquire(key("complete-all-done"));
        Lease twice = acquire(key("complete-all-twice"));
        assertThat(StoreCalls.complete(store, done, bytes("earlier"), RETENTION)).isTrue();
        Lease forged = new Lease(stale.key(), stale.token() + 1, stale.deadline());

        List<Boolean> recorded = store.complete(List.of(
                new Completion(current, bytes("a"), RETENTION),
                new Completion(forged, bytes("b"), RETENTION),
                new Completion(done, bytes("c"), RETENTION),
                new Completion(twice, bytes("first"), RETENTION),
                new Completion(twice, bytes("second"), RETENTION)));

        assertThat(recorded).containsExactly(true, false, false, true, false);
        assertThat(StoreCalls.find(store, current.key()).orElseThrow().result()).isEqualTo(bytes("a"));
        assertThat(StoreCalls.find(store, stale.key()).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(StoreCalls.find(store, done.key()).orElseThrow().result()).isEqualTo(bytes("earlier"));
        assertThat(StoreCalls.find(store, twice.key()).orElseThrow().result()).isEqualTo(bytes("first"));
        assertThat(store.complete(List.of())).isEmpty();
    }

    @Test
    @DisplayName("empty batches answer nothing")
    void emptyBatches() {
        assertThat(store.claim(List.of())).isEmpty();
        assertThat(store.complete(List.of())).isEmpty();
        assertThat(store.find(List.of())).isEmpty();
    }

    @Test
    @DisplayName("a batch of 250 keys acquires each once")
    void claimMany() {
        List<ClaimRequest> requests = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            requests.add(request(key("bulk-" + i), "fp", LONG));
        }
        List<ClaimResult> first = store.claim(requests);
        List<ClaimResult> second = store.claim(requests);

        assertThat(first).hasSize(250).allMatch(r -> r instanceof ClaimResult.Acquired);
        assertThat(second).hasSize(250).allMatch(r -> r instanceof ClaimResult.Busy);
    }

    // ---------------------------------------------------------------- an unreachable store

    @Test
    @DisplayName("a store that cannot be reached fails its claims, completions and reads with a OnceException")
    void unreachableStoreFails() {
        IdempotencyStore failing = createFailingStore();
        assertThat(failing).as("createFailingStore() of %s: override it to return a store whose calls fail",
                getClass().getName()).isNotNull();
        try (failing) {
            assertThat(catchThrowable(() -> failing.claim(List.of(request(key("failing-claim"), "fp", LONG)))))
                    .as("claim on the failing store").isInstanceOf(OnceException.class);
            Lease forged = new Lease(key("failing-lease"), 1, Instant.now().plus(LONG));
            List<Completion> completions = List.of(new Completion(forged, bytes("x"), RETENTION));
            Throwable completion = catchThrowable(() -> failing.complete(completions));
            assertThat(completion == null || completion instanceof OnceException)
                    .as("a completion either answers (refused) or fails with a OnceException: %s", completion).isTrue();
        }
    }

    // ---------------------------------------------------------------- bad and odd keys

    static Stream<Arguments> oddIds() {
        return Stream.of(
                Arguments.of("10 kB", "x".repeat(10_240)),
                Arguments.of("NUL", "a\u0000b"),
                Arguments.of("control characters", "line\nbreak\ttab\u007f"),
                Arguments.of("lone high surrogate", "bad\uD800id"),
                Arguments.of("lone low surrogate", "\uDC00"),
                Arguments.of("emoji", "order-\uD83D\uDE00-\uD83C\uDDE8\uD83C\uDDF3"),
                Arguments.of("right-to-left", "\u05D4\u05D6\u05DE\u05E0\u05D4-\u0645\u0631\u062D\u0628\u0627\u202E"),
                Arguments.of("digest look-alike", IdempotencyKey.DIGEST_PREFIX + "0".repeat(64)),
                Arguments.of("quotes and SQL", "'; DROP TABLE once_record; --"),
                Arguments.of("braces and colons", "{slot}:a:b:{x}"),
                Arguments.of("exactly 200 bytes", "y".repeat(IdempotencyKey.MAX_RAW_ID_BYTES)),
                Arguments.of("201 bytes", "y".repeat(IdempotencyKey.MAX_RAW_ID_BYTES + 1)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("oddIds")
    @DisplayName("odd ids claim, complete and read back like any other")
    void oddIdsWork(String label, String id) {
        IdempotencyKey key = key(id);
        Lease lease = acquire(key);
        assertThat(StoreCalls.claim(store, request(key, "fp-1", LONG))).isInstanceOf(ClaimResult.Busy.class);
        assertThat(StoreCalls.complete(store, lease, bytes(label), RETENTION)).isTrue();

        ClaimResult again = StoreCalls.claim(store, request(key, "fp-1", LONG));

        assertThat(again).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(((ClaimResult.Duplicate) again).record().result()).isEqualTo(bytes(label));
        assertThat(StoreCalls.find(store, key).orElseThrow().key()).isEqualTo(key);
    }

    @Test
    @DisplayName("ids that differ only in case, trailing space, one last character or one lone surrogate stay distinct")
    void similarIdsAreDistinct() {
        List<String> ids = List.of("abc", "ABC", "abc ", " abc", "ab\u0063\u0301", "x".repeat(10_240),
                "x".repeat(10_239) + "y", "bad\uD800", "bad\uD801", "digest", IdempotencyKey.DIGEST_PREFIX + "digest");
        for (String id : ids) {
            assertThat(StoreCalls.claim(store, request(key(id), "fp", LONG))).as("first claim of %s", id)
                    .isInstanceOf(ClaimResult.Acquired.class);
        }
    }

    @Test
    @DisplayName("the same id in two namespaces is two keys")
    void namespacesIsolate() {
        String other = newNamespace();
        StoreCalls.complete(store, acquire(key("shared-id")), bytes("a"), RETENTION);

        assertThat(StoreCalls.claim(store, request(IdempotencyKey.of(other, "shared-id"), "fp-1", LONG)))
                .isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    @DisplayName("an empty id or a bad namespace is refused before it reaches the store")
    void emptyIdIsRefused() {
        assertThatThrownBy(() -> key("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("id");
        assertThatThrownBy(() -> IdempotencyKey.of("bad namespace", "1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("namespace");
    }

    @Test
    @DisplayName("results keep every byte value, and an empty or absent result")
    void resultsAreBinarySafe() {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        IdempotencyKey binary = key("result-binary");
        IdempotencyKey empty = key("result-empty");
        IdempotencyKey none = key("result-none");
        StoreCalls.complete(store, acquire(binary), all, RETENTION);
        StoreCalls.complete(store, acquire(empty), new byte[0], RETENTION);
        StoreCalls.complete(store, acquire(none), null, RETENTION);

        assertThat(StoreCalls.find(store, binary).orElseThrow().result()).isEqualTo(all);
        byte[] emptyResult = StoreCalls.find(store, empty).orElseThrow().result();
        assertThat(emptyResult == null || emptyResult.length == 0).as("empty result read back empty").isTrue();
        byte[] noResult = StoreCalls.find(store, none).orElseThrow().result();
        assertThat(noResult == null || noResult.length == 0).as("absent result read back empty").isTrue();
    }

    // ---------------------------------------------------------------- concurrency

    @Test
    @DisplayName("16 threads racing one key: exactly one acquires")
    void oneWinnerPerKey() throws Exception {
        IdempotencyKey key = key("race-1");
        int threads = 16;
        CountDownLatch start = new CountDownLatch(1);
        AtomicInteger acquired = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    start.await();
                    if (StoreCalls.claim(store, request(key, "fp", LONG)) instanceof ClaimResult.Acquired) {
                        acquired.incrementAndGet();
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : futures) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(acquired).hasValue(1);
    }

    @Test
    @DisplayName("fuzz: 16 threads over 1,000 keys for several rounds; every key's effect happens exactly once")
    void fuzzExactlyOnce() throws Exception {
        int threads = 16;
        int keys = 1_000;
        for (int round = 0; round < fuzzRounds(); round++) {
            String ns = newNamespace();
            AtomicIntegerArray effects = new AtomicIntegerArray(keys);
            AtomicInteger refusedCompletions = new AtomicInteger();
            CountDownLatch start = new CountDownLatch(1);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    long seed = round * 1000L + t;
                    futures.add(pool.submit(() -> {
                        List<Integer> order = new ArrayList<>(keys);
                        for (int i = 0; i < keys; i++) {
                            order.add(i);
                        }
                        Collections.shuffle(order, new Random(seed));
                        start.await();
                        for (int i : order) {
                            IdempotencyKey k = IdempotencyKey.of(ns, "k" + i);
                            ClaimResult r = StoreCalls.claim(store, request(k, "fp", LONG));
                            if (r instanceof ClaimResult.Acquired a) {
                                effects.incrementAndGet(i);
                                if (!StoreCalls.complete(store, a.lease(), bytes("k" + i), RETENTION)) {
                                    refusedCompletions.incrementAndGet();
                                }
                            }
                        }
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> f : futures) {
                    f.get(5, TimeUnit.MINUTES);
                }
            } finally {
                pool.shutdownNow();
            }
            for (int i = 0; i < keys; i++) {
                assertThat(effects.get(i)).as("effects of key k%d in round %d", i, round).isEqualTo(1);
            }
            assertThat(refusedCompletions).hasValue(0);
            for (int i = 0; i < keys; i += 97) {
                IdempotencyRecord record = StoreCalls.find(store, IdempotencyKey.of(ns, "k" + i)).orElseThrow();
                assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
                assertThat(record.result()).isEqualTo(bytes("k" + i));
            }
        }
    }
}
