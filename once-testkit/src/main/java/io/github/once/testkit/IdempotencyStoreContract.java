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
import io.github.once.spi.RecordCopy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
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
 * <p>The asynchronous calls ({@code claimAllAsync}, {@code completeAllAsync}) must answer exactly as the synchronous
 * ones, and report failures through their stage with the exception the synchronous call throws (never wrapped, never
 * thrown by the call itself). For the failures, supply {@link #createFailingStore()} as well.
 */
public abstract class IdempotencyStoreContract {

    private static final Duration LONG = Duration.ofMinutes(5);
    private static final Duration RETENTION = Duration.ofHours(1);

    protected IdempotencyStore store;
    protected String namespace;

    /** A new store for each test; it is closed after the test. */
    protected abstract IdempotencyStore createStore();

    /**
     * A store of the same kind whose claims of new keys fail: its service unreachable (a closed port, a closed
     * connection) or the store full. The contract checks that the asynchronous calls report such a failure through
     * their stage. Every store supplies one; without it the test that needs it fails, naming this method.
     */
    protected IdempotencyStore createFailingStore() {
        return null;
    }

    /** A lease short enough to wait out in a test, long enough that the store answers well within it. */
    protected Duration shortLease() {
        return Duration.ofMillis(500);
    }

    /** Rounds of the fuzz test (16 threads over 1,000 keys each round). */
    protected int fuzzRounds() {
        return 3;
    }

    @BeforeEach
    void openStore() {
        store = createStore();
        namespace = newNamespace();
    }

    @AfterEach
    void closeStore() throws Exception {
        if (store != null) {
            store.close();
        }
    }

    protected static String newNamespace() {
        return "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    protected IdempotencyKey key(String id) {
        return IdempotencyKey.of(namespace, id);
    }

    protected static ClaimRequest request(IdempotencyKey key, String fingerprint, Duration lease) {
        return new ClaimRequest(key, fingerprint, lease, RETENTION);
    }

    protected Lease acquire(IdempotencyKey key, String fingerprint, Duration lease) {
        ClaimResult result = store.claim(request(key, fingerprint, lease));
        assertThat(result).as("claim of %s", key).isInstanceOf(ClaimResult.Acquired.class);
        return ((ClaimResult.Acquired) result).lease();
    }

    protected Lease acquire(IdempotencyKey key) {
        return acquire(key, "fp-1", LONG);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    // ---------------------------------------------------------------- claim results

    @Test
    @DisplayName("an absent key is acquired with a positive token and a future deadline")
    void absentKeyIsAcquired() {
        IdempotencyKey key = key("order-1");
        Instant before = Instant.now().minusSeconds(5);

        Lease lease = acquire(key);

        assertThat(lease.key()).isEqualTo(key);
        assertThat(lease.token()).isPositive();
        assertThat(lease.deadline()).isAfter(before.plus(LONG).minusSeconds(60));
        IdempotencyRecord record = store.find(key).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(record.token()).isEqualTo(lease.token());
        assertThat(record.fingerprint()).isEqualTo("fp-1");
        assertThat(record.key()).isEqualTo(key);
    }

    @Test
    @DisplayName("findAll answers each key, in order, as find does: completed, in progress, absent, a key twice;"
            + " findAllAsync answers as findAll")
    void findAllAnswersAsFindDoes() {
        IdempotencyKey done = key("find-done");
        IdempotencyKey working = key("find-working");
        IdempotencyKey absent = key("find-absent");
        assertThat(store.complete(acquire(done), bytes("receipt"), RETENTION)).isTrue();
        Lease lease = acquire(working);

        List<Optional<IdempotencyRecord>> found = store.findAll(List.of(done, working, absent, done));

        assertThat(found).hasSize(4);
        assertThat(found.get(0)).get().satisfies(r -> {
            assertThat(r.key()).isEqualTo(done);
            assertThat(r.state()).isEqualTo(RecordState.COMPLETED);
            assertThat(r.result()).isEqualTo(bytes("receipt"));
        });
        assertThat(found.get(1)).get().satisfies(r -> {
            assertThat(r.state()).isEqualTo(RecordState.IN_PROGRESS);
            assertThat(r.token()).isEqualTo(lease.token());
        });
        assertThat(found.get(2)).isEmpty();
        assertThat(found.get(3)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
        assertThat(store.findAll(List.of())).isEmpty();

        CompletableFuture<List<Optional<IdempotencyRecord>>> read =
                store.findAllAsync(List.of(done, working, absent, done)).toCompletableFuture();
        await().atMost(ASYNC_BOUND).until(read::isDone);
        assertThat(described(read.join())).isEqualTo(described(found))
                .contains("COMPLETED token ", "result receipt", "IN_PROGRESS token ", ", absent, ");
        assertThat(store.findAllAsync(List.of()).toCompletableFuture().join()).isEmpty();
    }

    /** Records as text that two reads of the same records share (a result's bytes, not the array's identity). */
    private static String described(List<Optional<IdempotencyRecord>> records) {
        return records.stream().map(found -> found.map(r -> r.state() + " token " + r.token() + " result "
                + (r.result() == null ? "none" : new String(r.result(), StandardCharsets.UTF_8)))
                .orElse("absent")).collect(Collectors.joining(", "));
    }

    @Test
    @DisplayName("a key under a live lease is busy until that lease's deadline")
    void liveLeaseIsBusy() {
        IdempotencyKey key = key("order-2");
        Lease lease = acquire(key);

        ClaimResult second = store.claim(request(key, "fp-1", LONG));

        assertThat(second).isInstanceOf(ClaimResult.Busy.class);
        Instant until = ((ClaimResult.Busy) second).leaseUntil();
        assertThat(Duration.between(lease.deadline(), until).abs()).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    @DisplayName("a completed key is a duplicate carrying the stored result")
    void completedKeyIsDuplicate() {
        IdempotencyKey key = key("order-3");
        Lease lease = acquire(key);
        assertThat(store.complete(lease, bytes("receipt-42"), RETENTION)).isTrue();

        ClaimResult again = store.claim(request(key, "fp-1", LONG));

        assertThat(again).isInstanceOf(ClaimResult.Duplicate.class);
        IdempotencyRecord record = ((ClaimResult.Duplicate) again).record();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.result()).isEqualTo(bytes("receipt-42"));
        assertThat(record.token()).isEqualTo(lease.token());
        assertThat(record.key()).isEqualTo(key);
        assertThat(store.find(key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    @DisplayName("another fingerprint on a completed key is a conflict")
    void otherFingerprintOnCompletedIsConflict() {
        IdempotencyKey key = key("order-4");
        store.complete(acquire(key, "fp-a", LONG), bytes("done"), RETENTION);

        ClaimResult other = store.claim(request(key, "fp-b", LONG));

        assertThat(other).isInstanceOf(ClaimResult.Conflict.class);
        assertThat(((ClaimResult.Conflict) other).record().fingerprint()).isEqualTo("fp-a");
        assertThat(store.claim(request(key, "fp-a", LONG))).isInstanceOf(ClaimResult.Duplicate.class);
    }

    @Test
    @DisplayName("another fingerprint on a live lease is a conflict")
    void otherFingerprintOnLiveLeaseIsConflict() {
        IdempotencyKey key = key("order-5");
        acquire(key, "fp-a", LONG);

        assertThat(store.claim(request(key, "fp-b", LONG))).isInstanceOf(ClaimResult.Conflict.class);
    }

    @Test
    @DisplayName("a missing fingerprint never conflicts")
    void noFingerprintNeverConflicts() {
        IdempotencyKey key = key("order-6");
        store.complete(acquire(key, null, LONG), null, RETENTION);

        assertThat(store.claim(request(key, "fp-x", LONG))).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(store.claim(request(key, null, LONG))).isInstanceOf(ClaimResult.Duplicate.class);
    }

    @Test
    @DisplayName("an unknown key is not found")
    void unknownKeyIsNotFound() {
        assertThat(store.find(key("never-claimed"))).isEmpty();
    }

    // ---------------------------------------------------------------- fencing

    @Test
    @DisplayName("complete, release and renew are refused with a token that is not current")
    void wrongTokenIsRefused() {
        IdempotencyKey key = key("fence-1");
        Lease lease = acquire(key);
        Lease forged = new Lease(key, lease.token() + 1, lease.deadline());
        Lease older = new Lease(key, Math.max(1, lease.token() - 1), lease.deadline());

        assertThat(store.complete(forged, bytes("x"), RETENTION)).isFalse();
        assertThat(store.complete(older, bytes("x"), RETENTION)).isFalse();
        assertThat(store.renew(forged, LONG)).isEmpty();
        assertThat(store.release(forged)).isFalse();

        IdempotencyRecord record = store.find(key).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(record.token()).isEqualTo(lease.token());
        assertThat(store.complete(lease, bytes("ok"), RETENTION)).isTrue();
    }

    @Test
    @DisplayName("a completed lease cannot be completed, released or renewed again")
    void completedLeaseIsFinal() {
        IdempotencyKey key = key("fence-2");
        Lease lease = acquire(key);
        assertThat(store.complete(lease, bytes("first"), RETENTION)).isTrue();

        assertThat(store.complete(lease, bytes("second"), RETENTION)).isFalse();
        assertThat(store.release(lease)).isFalse();
        assertThat(store.renew(lease, LONG)).isEmpty();
        assertThat(store.find(key).orElseThrow().result()).isEqualTo(bytes("first"));
    }

    @Test
    @DisplayName("release lets the next claim acquire at once with a greater token")
    void releaseFreesKey() {
        IdempotencyKey key = key("release-1");
        Lease first = acquire(key);
        assertThat(store.release(first)).isTrue();

        Lease second = acquire(key);

        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(store.complete(first, bytes("stale"), RETENTION)).isFalse();
        assertThat(store.release(first)).isFalse();
        assertThat(store.complete(second, bytes("fresh"), RETENTION)).isTrue();
        assertThat(store.find(key).orElseThrow().result()).isEqualTo(bytes("fresh"));
    }

    @Test
    @DisplayName("renew moves the deadline and keeps the key busy past the first deadline")
    void renewKeepsLease() {
        IdempotencyKey key = key("renew-1");
        Duration lease = shortLease();
        Lease current = acquire(key, "fp", lease);
        Instant firstDeadline = current.deadline();
        long renewUntil = System.nanoTime() + lease.multipliedBy(3).toNanos();

        while (System.nanoTime() < renewUntil) {
            Optional<Lease> renewed = store.renew(current, lease);
            assertThat(renewed).as("renewal of a live lease").isPresent();
            assertThat(renewed.get().token()).isEqualTo(current.token());
            current = renewed.get();
            assertThat(store.claim(request(key, "fp", lease))).isInstanceOf(ClaimResult.Busy.class);
            long next = System.nanoTime() + lease.toNanos() / 4; // pace renewals at a quarter of the lease
            await().atMost(lease).pollInterval(Duration.ofMillis(10)).until(() -> System.nanoTime() >= next);
        }

        assertThat(current.deadline()).isAfter(firstDeadline);
        assertThat(store.complete(current, bytes("done"), RETENTION)).isTrue();
    }

    @Test
    @DisplayName("an expired lease is taken over with a greater token and the stale owner is refused")
    void expiredLeaseIsTakenOver() {
        IdempotencyKey key = key("takeover-1");
        Lease stale = acquire(key, "fp", shortLease());

        ClaimResult taken = await().atMost(shortLease().multipliedBy(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> store.claim(request(key, "fp", LONG)), r -> r instanceof ClaimResult.Acquired);
        Lease fresh = ((ClaimResult.Acquired) taken).lease();

        assertThat(fresh.token()).isGreaterThan(stale.token());
        assertThat(store.renew(stale, LONG)).isEmpty();
        assertThat(store.complete(stale, bytes("stale"), RETENTION)).isFalse();
        assertThat(store.release(stale)).isFalse();
        assertThat(store.find(key).orElseThrow().token()).isEqualTo(fresh.token());
        assertThat(store.complete(fresh, bytes("fresh"), RETENTION)).isTrue();
        assertThat(store.find(key).orElseThrow().result()).isEqualTo(bytes("fresh"));
    }

    @Test
    @DisplayName("an expired lease can no longer be completed even before anyone takes it over")
    void lapsedLeaseCannotComplete() {
        IdempotencyKey key = key("lapsed-1");
        Lease lease = acquire(key, "fp", shortLease());

        Instant lapsed = lease.deadline().plusMillis(100);
        await().atMost(shortLease().multipliedBy(10)).until(() -> Instant.now().isAfter(lapsed));

        assertThat(store.complete(lease, bytes("late"), RETENTION)).isFalse();
    }

    @Test
    @DisplayName("tokens keep increasing over repeated takeovers")
    void tokensIncreaseOverTakeovers() {
        IdempotencyKey key = key("takeover-2");
        long previous = 0;
        for (int i = 0; i < 3; i++) {
            Lease lease = acquire(key, "fp", LONG);
            assertThat(lease.token()).isGreaterThan(previous);
            previous = lease.token();
            assertThat(store.release(lease)).isTrue();
        }
    }

    // ---------------------------------------------------------------- takeovers (crash loops)

    /** Claims {@code key} as soon as its current lease has lapsed; the acquired answer. */
    private ClaimResult.Acquired afterLapse(IdempotencyKey key, Duration lease) {
        ClaimResult taken = await().atMost(shortLease().multipliedBy(10)).pollInterval(Duration.ofMillis(25))
                .until(() -> store.claim(request(key, "fp", lease)), r -> r instanceof ClaimResult.Acquired);
        return (ClaimResult.Acquired) taken;
    }

    /** Waits until {@code key}'s record is past its expiry, then claims it: a fresh key, no takeovers. */
    private void assertFreshOnceForgotten(IdempotencyKey key) {
        await().atMost(shortLease().multipliedBy(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> store.find(key).isEmpty());
        assertThat(acquired(store.claim(request(key, "fp", LONG))).takeovers()).isZero();
    }

    private ClaimResult.Acquired acquired(ClaimResult result) {
        assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
        return (ClaimResult.Acquired) result;
    }

    @Test
    @DisplayName("a fresh key is acquired with no takeovers")
    void freshKeyCountsNoTakeover() {
        assertThat(acquired(store.claim(request(key("fresh-t"), "fp", LONG))).takeovers()).isZero();
    }

    @Test
    @DisplayName("each takeover of a lapsed lease nobody completed or released counts one more, atomically with the claim")
    void takeoverOfLapsedLeaseCounts() {
        IdempotencyKey key = key("crash-1");
        assertThat(acquired(store.claim(request(key, "fp", shortLease()))).takeovers()).isZero();

        ClaimResult.Acquired first = afterLapse(key, shortLease());
        assertThat(first.takeovers()).isEqualTo(1);
        ClaimResult.Acquired second = afterLapse(key, shortLease());
        assertThat(second.takeovers()).isEqualTo(2);
        assertThat(second.lease().token()).isGreaterThan(first.lease().token());
        assertThat(store.claim(request(key, "fp", LONG))).isInstanceOf(ClaimResult.Busy.class);
    }

    @Test
    @DisplayName("a claim after a release is no takeover and starts the count again")
    void releaseThenClaimCountsNone() {
        IdempotencyKey key = key("crash-2");
        acquire(key, "fp", shortLease());
        ClaimResult.Acquired taken = afterLapse(key, LONG);
        assertThat(taken.takeovers()).isEqualTo(1);
        assertThat(store.release(taken.lease())).isTrue();

        ClaimResult.Acquired again = acquired(store.claim(request(key, "fp", shortLease())));
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
        assertThat(store.complete(taken.lease(), bytes("done"), shortLease())).isTrue();
        assertThat(store.claim(request(key, "fp", LONG))).isInstanceOf(ClaimResult.Duplicate.class);

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
                .until(() -> store.claim(new ClaimRequest(key, "fp", shortLease(), shortLease()))
                        instanceof ClaimResult.Acquired a && a.takeovers() == 3);
        assertFreshOnceForgotten(key);
    }

    @Test
    @DisplayName("claimAll counts takeovers exactly as single claims do")
    void claimAllCountsTakeoversAsSingleClaims() {
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

        List<ClaimResult> results = store.claimAll(List.of(
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
        store.complete(acquire(key), bytes("done"), shortLease());
        assertThat(store.claim(request(key, "fp-1", LONG))).isInstanceOf(ClaimResult.Duplicate.class);

        await().atMost(shortLease().multipliedBy(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> store.find(key).isEmpty());

        assertThat(store.claim(request(key, "fp-1", LONG))).isInstanceOf(ClaimResult.Acquired.class);
    }

    // ---------------------------------------------------------------- batches

    @Test
    @DisplayName("claimAll answers exactly as single claims in order would")
    void claimAllMatchesSingleClaims() {
        IdempotencyKey fresh = key("batch-fresh");
        IdempotencyKey busy = key("batch-busy");
        IdempotencyKey done = key("batch-done");
        IdempotencyKey clash = key("batch-clash");
        IdempotencyKey twice = key("batch-twice");
        acquire(busy);
        store.complete(acquire(done), bytes("r"), RETENTION);
        store.complete(acquire(clash, "fp-a", LONG), bytes("r"), RETENTION);

        List<ClaimResult> results = store.claimAll(List.of(
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
        assertThat(store.complete(batchLease, bytes("ok"), RETENTION)).isTrue();
    }

    @Test
    @DisplayName("completeAll answers exactly as single completions in order would")
    void completeAllMatchesSingleCompletions() {
        Lease current = acquire(key("complete-all-current"));
        Lease stale = acquire(key("complete-all-stale"));
        Lease done = acquire(key("complete-all-done"));
        Lease twice = acquire(key("complete-all-twice"));
        assertThat(store.complete(done, bytes("earlier"), RETENTION)).isTrue();
        Lease forged = new Lease(stale.key(), stale.token() + 1, stale.deadline());

        List<Boolean> recorded = store.completeAll(List.of(
                new Completion(current, bytes("a"), RETENTION),
                new Completion(forged, bytes("b"), RETENTION),
                new Completion(done, bytes("c"), RETENTION),
                new Completion(twice, bytes("first"), RETENTION),
                new Completion(twice, bytes("second"), RETENTION)));

        assertThat(recorded).containsExactly(true, false, false, true, false);
        assertThat(store.find(current.key()).orElseThrow().result()).isEqualTo(bytes("a"));
        assertThat(store.find(stale.key()).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(store.find(done.key()).orElseThrow().result()).isEqualTo(bytes("earlier"));
        assertThat(store.find(twice.key()).orElseThrow().result()).isEqualTo(bytes("first"));
        assertThat(store.completeAll(List.of())).isEmpty();
    }

    @Test
    @DisplayName("claimAll of an empty batch answers nothing")
    void claimAllEmpty() {
        assertThat(store.claimAll(List.of())).isEmpty();
    }

    @Test
    @DisplayName("claimAll of many keys acquires each once")
    void claimAllMany() {
        List<ClaimRequest> requests = new ArrayList<>();
        for (int i = 0; i < 250; i++) {
            requests.add(request(key("bulk-" + i), "fp", LONG));
        }
        List<ClaimResult> first = store.claimAll(requests);
        List<ClaimResult> second = store.claimAll(requests);

        assertThat(first).hasSize(250).allMatch(r -> r instanceof ClaimResult.Acquired);
        assertThat(second).hasSize(250).allMatch(r -> r instanceof ClaimResult.Busy);
    }

    // ---------------------------------------------------------------- asynchronous calls

    private static final Duration ASYNC_BOUND = Duration.ofSeconds(30);

    /** The answer of a stage, once it completed (within a bound). */
    private static <T> T settle(CompletionStage<T> stage) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        await().atMost(ASYNC_BOUND).until(future::isDone);
        return future.join();
    }

    /** What the stage failed with, as the stage itself holds it (a wrapped failure shows as its wrapper). */
    private static Throwable failureOf(CompletionStage<?> stage) {
        CompletableFuture<?> future = stage.toCompletableFuture();
        await().atMost(ASYNC_BOUND).until(future::isDone);
        return future.handle((value, failure) -> failure).join();
    }

    /** A call's outcome, to compare a synchronous call with an asynchronous one: the answer, or what failed it. */
    private static String outcome(Supplier<?> call) {
        try {
            return "answered " + call.get();
        } catch (RuntimeException e) {
            return "failed with " + e.getClass().getName();
        }
    }

    private static String outcome(CompletionStage<?> stage) {
        Throwable failure = failureOf(stage);
        return failure == null ? "answered " + stage.toCompletableFuture().join()
                : "failed with " + failure.getClass().getName();
    }

    /**
     * Records in every state a claim can meet, in namespace {@code ns}, and a batch that claims them: a new key,
     * a live lease, a completed key, a completed key and a live lease under another fingerprint, a released key,
     * and a new key twice.
     */
    private List<ClaimRequest> claimsOfEveryState(String ns) {
        IdempotencyKey busy = IdempotencyKey.of(ns, "busy");
        IdempotencyKey done = IdempotencyKey.of(ns, "done");
        IdempotencyKey clash = IdempotencyKey.of(ns, "clash");
        IdempotencyKey released = IdempotencyKey.of(ns, "released");
        acquire(busy, "fp-1", LONG);
        assertThat(store.complete(acquire(done, "fp-1", LONG), bytes("r-done"), RETENTION)).isTrue();
        assertThat(store.complete(acquire(clash, "fp-a", LONG), bytes("r-clash"), RETENTION)).isTrue();
        assertThat(store.release(acquire(released, "fp-1", LONG))).isTrue();
        IdempotencyKey fresh = IdempotencyKey.of(ns, "fresh");
        IdempotencyKey twice = IdempotencyKey.of(ns, "twice");
        return List.of(request(fresh, "fp-1", LONG), request(busy, "fp-1", LONG), request(done, "fp-1", LONG),
                request(clash, "fp-b", LONG), request(busy, "fp-b", LONG), request(released, "fp-1", LONG),
                request(twice, "fp-1", LONG), request(twice, "fp-1", LONG));
    }

    @Test
    @DisplayName("claimAllAsync answers exactly as claimAll: new keys, duplicates, busy, conflicts, a key twice")
    void claimAllAsyncAnswersAsClaimAll() {
        List<ClaimRequest> sync = claimsOfEveryState(newNamespace());
        List<ClaimRequest> async = claimsOfEveryState(newNamespace());

        List<ClaimResult> expected = store.claimAll(sync);
        List<ClaimResult> answered = settle(store.claimAllAsync(async));

        assertThat(answered.stream().map(Answers::describe).toList())
                .isEqualTo(expected.stream().map(Answers::describe).toList());
        assertThat(answered.stream().map(r -> r.getClass().getSimpleName()).distinct())
                .containsExactlyInAnyOrder("Acquired", "Busy", "Duplicate", "Conflict");
        for (ClaimResult result : answered) {
            if (result instanceof ClaimResult.Acquired acquired) {
                assertThat(store.complete(acquired.lease(), bytes("ok"), RETENTION))
                        .as("completion of %s acquired asynchronously", acquired.lease().key()).isTrue();
            }
        }
    }

    /**
     * Leases in every state a completion can meet, in namespace {@code ns}: current, stale (a newer token), already
     * completed, released, and one lease completed twice.
     */
    private List<Completion> completionsOfEveryState(String ns) {
        Lease current = acquire(IdempotencyKey.of(ns, "current"), "fp-1", LONG);
        Lease stale = acquire(IdempotencyKey.of(ns, "stale"), "fp-1", LONG);
        Lease done = acquire(IdempotencyKey.of(ns, "done"), "fp-1", LONG);
        assertThat(store.complete(done, bytes("earlier"), RETENTION)).isTrue();
        Lease released = acquire(IdempotencyKey.of(ns, "released"), "fp-1", LONG);
        assertThat(store.release(released)).isTrue();
        Lease twice = acquire(IdempotencyKey.of(ns, "twice"), "fp-1", LONG);
        Lease forged = new Lease(stale.key(), stale.token() + 1, stale.deadline());
        return List.of(new Completion(current, bytes("a"), RETENTION), new Completion(forged, bytes("b"), RETENTION),
                new Completion(done, bytes("c"), RETENTION), new Completion(released, bytes("d"), RETENTION),
                new Completion(twice, bytes("first"), RETENTION), new Completion(twice, null, RETENTION));
    }

    @Test
    @DisplayName("completeAllAsync answers exactly as completeAll: current, stale token, completed, released, twice")
    void completeAllAsyncAnswersAsCompleteAll() {
        List<Completion> sync = completionsOfEveryState(newNamespace());
        List<Completion> async = completionsOfEveryState(newNamespace());

        List<Boolean> expected = store.completeAll(sync);
        List<Boolean> answered = settle(store.completeAllAsync(async));

        assertThat(answered).isEqualTo(expected).containsExactly(true, false, false, false, true, false);
        for (int i = 0; i < sync.size(); i++) {
            assertThat(store.find(async.get(i).lease().key()).map(Answers::describe))
                    .as("record of %s", async.get(i).lease().key().id())
                    .isEqualTo(store.find(sync.get(i).lease().key()).map(Answers::describe));
        }
    }

    @Test
    @DisplayName("the async calls answer empty batches with empty lists")
    void asyncEmptyBatches() {
        assertThat(settle(store.claimAllAsync(List.of()))).isEmpty();
        assertThat(settle(store.completeAllAsync(List.of()))).isEmpty();
        assertThat(settle(store.insertCopiesAsync(List.of()))).isEmpty();
    }

    // ---------------------------------------------------------------- copies (a tiered store's front)

    @Test
    @DisplayName("insertCopiesAsync writes completed records where a key has none and leaves live records as they are")
    void insertCopiesWritesOnlyWhereNoLiveRecord() {
        IdempotencyKey absent = key("copy-absent");
        IdempotencyKey withoutResult = key("copy-without-result");
        IdempotencyKey working = key("copy-working");
        IdempotencyKey done = key("copy-done");
        Lease inProgress = acquire(working);
        assertThat(store.complete(acquire(done), bytes("original"), RETENTION)).isTrue();
        Instant before = Instant.now();

        List<Boolean> written = settle(store.insertCopiesAsync(List.of(
                new RecordCopy(absent, bytes("copy"), RETENTION),
                new RecordCopy(withoutResult, null, RETENTION),
                new RecordCopy(working, bytes("copy"), RETENTION),
                new RecordCopy(done, bytes("copy"), RETENTION),
                new RecordCopy(absent, bytes("again"), RETENTION))));

        Instant after = Instant.now();
        assertThat(written).containsExactly(true, true, false, false, false);
        IdempotencyRecord copy = store.find(absent).orElseThrow();
        assertThat(copy.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(copy.result()).isEqualTo(bytes("copy"));
        assertThat(copy.fingerprint()).isNull();
        assertThat(copy.expiresAt()).isBetween(before.plus(RETENTION).minusSeconds(5),
                after.plus(RETENTION).plusSeconds(5));
        assertThat(store.find(withoutResult).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(store.find(withoutResult).orElseThrow().result()).isNull();
        IdempotencyRecord stillWorking = store.find(working).orElseThrow();
        assertThat(stillWorking.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(stillWorking.token()).isEqualTo(inProgress.token());
        assertThat(store.find(done).orElseThrow().result()).isEqualTo(bytes("original"));
        ClaimResult claim = store.claim(request(absent, "fp-1", LONG));
        assertThat(claim).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(((ClaimResult.Duplicate) claim).record().result()).isEqualTo(bytes("copy"));
    }

    @Test
    @DisplayName("insertCopiesAsync writes over a record past its retention")
    void insertCopiesReplacesAnExpiredRecord() {
        IdempotencyKey key = key("copy-expired");
        assertThat(store.complete(acquire(key), bytes("old"), shortLease())).isTrue();
        await().atMost(shortLease().multipliedBy(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> store.find(key).isEmpty());

        assertThat(settle(store.insertCopiesAsync(List.of(new RecordCopy(key, bytes("new"), RETENTION)))))
                .containsExactly(true);

        assertThat(store.find(key).orElseThrow().result()).isEqualTo(bytes("new"));
    }

    @Test
    @DisplayName("16 async claims of one key in flight at once: exactly one acquires")
    void asyncClaimsRaceOneWinner() {
        IdempotencyKey key = key("async-race");
        List<CompletionStage<List<ClaimResult>>> inFlight = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            inFlight.add(store.claimAllAsync(List.of(request(key, "fp", LONG))));
        }
        int acquired = 0;
        for (CompletionStage<List<ClaimResult>> stage : inFlight) {
            ClaimResult result = settle(stage).get(0);
            assertThat(result).isInstanceOfAny(ClaimResult.Acquired.class, ClaimResult.Busy.class);
            acquired += result instanceof ClaimResult.Acquired ? 1 : 0;
        }
        assertThat(acquired).isEqualTo(1);
    }

    @Test
    @DisplayName("a request claimAll refuses fails the async stage the same way; the async call itself does not throw")
    void asyncRefusesWhatSyncRefuses() {
        List<ClaimRequest> syncBatch = Arrays.asList(request(key("refused-sync"), "fp", LONG), null);
        List<ClaimRequest> asyncBatch = Arrays.asList(request(key("refused-async"), "fp", LONG), null);
        Throwable sync = catchThrowable(() -> store.claimAll(syncBatch));
        assertThat(sync).as("claimAll with a null request").isNotNull();

        CompletionStage<List<ClaimResult>> stage = store.claimAllAsync(asyncBatch);

        assertThat(failureOf(stage)).hasSameClassAs(sync);
    }

    @Test
    @DisplayName("a store failure completes the async stage exceptionally with what the sync call throws")
    void storeFailureCompletesTheAsyncStage() {
        IdempotencyStore failing = createFailingStore();
        assertThat(failing).as("createFailingStore() of %s: override it to return a store whose claims fail",
                getClass().getName()).isNotNull();
        try (failing) {
            Throwable sync = catchThrowable(() -> failing.claimAll(List.of(request(key("failing-sync"), "fp", LONG))));
            assertThat(sync).as("claimAll on the failing store").isInstanceOf(OnceException.class);

            CompletionStage<List<ClaimResult>> stage = failing.claimAllAsync(
                    List.of(request(key("failing-async"), "fp", LONG)));

            assertThat(failureOf(stage)).hasSameClassAs(sync);
            Lease forged = new Lease(key("failing-lease"), 1, Instant.now().plus(LONG));
            List<Completion> completions = List.of(new Completion(forged, bytes("x"), RETENTION));
            assertThat(outcome(failing.completeAllAsync(completions)))
                    .isEqualTo(outcome(() -> failing.completeAll(completions)));
            assertThat(failureOf(failing.insertCopiesAsync(
                    List.of(new RecordCopy(key("failing-copy"), bytes("x"), RETENTION))))).hasSameClassAs(sync);
            assertThat(outcome(failing.findAllAsync(List.of(key("failing-find")))))
                    .isEqualTo(outcome(() -> failing.findAll(List.of(key("failing-find")))));
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
        assertThat(store.claim(request(key, "fp-1", LONG))).isInstanceOf(ClaimResult.Busy.class);
        assertThat(store.complete(lease, bytes(label), RETENTION)).isTrue();

        ClaimResult again = store.claim(request(key, "fp-1", LONG));

        assertThat(again).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(((ClaimResult.Duplicate) again).record().result()).isEqualTo(bytes(label));
        assertThat(store.find(key).orElseThrow().key()).isEqualTo(key);
    }

    @Test
    @DisplayName("ids that differ only in case, trailing space, one last character or one lone surrogate stay distinct")
    void similarIdsAreDistinct() {
        List<String> ids = List.of("abc", "ABC", "abc ", " abc", "ab\u0063\u0301", "x".repeat(10_240),
                "x".repeat(10_239) + "y", "bad\uD800", "bad\uD801", "digest", IdempotencyKey.DIGEST_PREFIX + "digest");
        for (String id : ids) {
            assertThat(store.claim(request(key(id), "fp", LONG))).as("first claim of %s", id)
                    .isInstanceOf(ClaimResult.Acquired.class);
        }
    }

    @Test
    @DisplayName("the same id in two namespaces is two keys")
    void namespacesIsolate() {
        String other = newNamespace();
        store.complete(acquire(key("shared-id")), bytes("a"), RETENTION);

        assertThat(store.claim(request(IdempotencyKey.of(other, "shared-id"), "fp-1", LONG)))
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
        store.complete(acquire(binary), all, RETENTION);
        store.complete(acquire(empty), new byte[0], RETENTION);
        store.complete(acquire(none), null, RETENTION);

        assertThat(store.find(binary).orElseThrow().result()).isEqualTo(all);
        byte[] emptyResult = store.find(empty).orElseThrow().result();
        assertThat(emptyResult == null || emptyResult.length == 0).as("empty result read back empty").isTrue();
        byte[] noResult = store.find(none).orElseThrow().result();
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
                    if (store.claim(request(key, "fp", LONG)) instanceof ClaimResult.Acquired) {
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
                            ClaimResult r = store.claim(request(k, "fp", LONG));
                            if (r instanceof ClaimResult.Acquired a) {
                                effects.incrementAndGet(i);
                                if (!store.complete(a.lease(), bytes("k" + i), RETENTION)) {
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
                IdempotencyRecord record = store.find(IdempotencyKey.of(ns, "k" + i)).orElseThrow();
                assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
                assertThat(record.result()).isEqualTo(bytes("k" + i));
            }
        }
    }
}
