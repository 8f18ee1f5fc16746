package io.github.once.testkit;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.RecordState;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The first half of {@link IdempotencyStoreContract}: its fixture (the store, a namespace per test, the hooks a
 * store's test supplies) and the checks of single claims and fencing. Not public: stores extend the contract.
 */
abstract class StoreContractBase {

    static final Duration LONG = Duration.ofMinutes(5);
    static final Duration RETENTION = Duration.ofHours(1);

    protected IdempotencyStore store;
    protected String namespace;

    /** A new store for each test; it is closed after the test. */
    protected abstract IdempotencyStore createStore();

    /**
     * A store of the same kind whose claims of new keys fail: its service unreachable (a closed port, a closed
     * connection) or the store full. Every store supplies one; without it the test that needs it fails, naming
     * this method.
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
        ClaimResult result = StoreCalls.claim(store, request(key, fingerprint, lease));
        assertThat(result).as("claim of %s", key).isInstanceOf(ClaimResult.Acquired.class);
        return ((ClaimResult.Acquired) result).lease();
    }

    protected Lease acquire(IdempotencyKey key) {
        return acquire(key, "fp-1", LONG);
    }

    static byte[] bytes(String s) {
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
        IdempotencyRecord record = StoreCalls.find(store, key).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(record.token()).isEqualTo(lease.token());
        assertThat(record.fingerprint()).isEqualTo("fp-1");
        assertThat(record.key()).isEqualTo(key);
    }

    @Test
    @DisplayName("find answers each key of a batch, in order, as it answers each alone: completed, in progress,"
            + " absent, a key twice")
    void findAnswersAsFindDoes() {
        IdempotencyKey done = key("find-done");
        IdempotencyKey working = key("find-working");
        IdempotencyKey absent = key("find-absent");
        assertThat(StoreCalls.complete(store, acquire(done), bytes("receipt"), RETENTION)).isTrue();
        Lease lease = acquire(working);

        List<Optional<IdempotencyRecord>> found = store.find(List.of(done, working, absent, done));

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
        assertThat(store.find(List.of())).isEmpty();
    }

    @Test
    @DisplayName("a key under a live lease is busy until that lease's deadline")
    void liveLeaseIsBusy() {
        IdempotencyKey key = key("order-2");
        Lease lease = acquire(key);

        ClaimResult second = StoreCalls.claim(store, request(key, "fp-1", LONG));

        assertThat(second).isInstanceOf(ClaimResult.Busy.class);
        Instant until = ((ClaimResult.Busy) second).leaseUntil();
        assertThat(Duration.between(lease.deadline(), until).abs()).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    @DisplayName("a completed key is a duplicate carrying the stored result")
    void completedKeyIsDuplicate() {
        IdempotencyKey key = key("order-3");
        Lease lease = acquire(key);
        assertThat(StoreCalls.complete(store, lease, bytes("receipt-42"), RETENTION)).isTrue();

        ClaimResult again = StoreCalls.claim(store, request(key, "fp-1", LONG));

        assertThat(again).isInstanceOf(ClaimResult.Duplicate.class);
        IdempotencyRecord record = ((ClaimResult.Duplicate) again).record();
        assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
        assertThat(record.result()).isEqualTo(bytes("receipt-42"));
        assertThat(record.token()).isEqualTo(lease.token());
        assertThat(record.key()).isEqualTo(key);
        assertThat(StoreCalls.find(store, key)).get().extracting(IdempotencyRecord::state).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    @DisplayName("another fingerprint on a completed key is a conflict")
    void otherFingerprintOnCompletedIsConflict() {
        IdempotencyKey key = key("order-4");
        StoreCalls.complete(store, acquire(key, "fp-a", LONG), bytes("done"), RETENTION);

        ClaimResult other = StoreCalls.claim(store, request(key, "fp-b", LONG));

        assertThat(other).isInstanceOf(ClaimResult.Conflict.class);
        assertThat(((ClaimResult.Conflict) other).record().fingerprint()).isEqualTo("fp-a");
        assertThat(StoreCalls.claim(store, request(key, "fp-a", LONG))).isInstanceOf(ClaimResult.Duplicate.class);
    }

    @Test
    @DisplayName("another fingerprint on a live lease is a conflict")
    void otherFingerprintOnLiveLeaseIsConflict() {
        IdempotencyKey key = key("order-5");
        acquire(key, "fp-a", LONG);

        assertThat(StoreCalls.claim(store, request(key, "fp-b", LONG))).isInstanceOf(ClaimResult.Conflict.class);
    }

    @Test
    @DisplayName("a missing fingerprint never conflicts")
    void noFingerprintNeverConflicts() {
        IdempotencyKey key = key("order-6");
        StoreCalls.complete(store, acquire(key, null, LONG), null, RETENTION);

        assertThat(StoreCalls.claim(store, request(key, "fp-x", LONG))).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(StoreCalls.claim(store, request(key, null, LONG))).isInstanceOf(ClaimResult.Duplicate.class);
    }

    @Test
    @DisplayName("an unknown key is not found")
    void unknownKeyIsNotFound() {
        assertThat(StoreCalls.find(store, key("never-claimed"))).isEmpty();
    }

    // ---------------------------------------------------------------- fencing

    @Test
    @DisplayName("complete, release and renew are refused with a token that is not current")
    void wrongTokenIsRefused() {
        IdempotencyKey key = key("fence-1");
        Lease lease = acquire(key);
        Lease forged = new Lease(key, lease.token() + 1, lease.deadline());
        Lease older = new Lease(key, Math.max(1, lease.token() - 1), lease.deadline());

        assertThat(StoreCalls.complete(store, forged, bytes("x"), RETENTION)).isFalse();
        assertThat(StoreCalls.complete(store, older, bytes("x"), RETENTION)).isFalse();
        assertThat(store.renew(forged, LONG)).isEmpty();
        assertThat(store.release(forged)).isFalse();

        IdempotencyRecord record = StoreCalls.find(store, key).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(record.token()).isEqualTo(lease.token());
        assertThat(StoreCalls.complete(store, lease, bytes("ok"), RETENTION)).isTrue();
    }

    @Test
    @DisplayName("a completed lease cannot be completed, released or renewed again")
    void completedLeaseIsFinal() {
        IdempotencyKey key = key("fence-2");
        Lease lease = acquire(key);
        assertThat(StoreCalls.complete(store, lease, bytes("first"), RETENTION)).isTrue();

        assertThat(StoreCalls.complete(store, lease, bytes("second"), RETENTION)).isFalse();
        assertThat(store.release(lease)).isFalse();
        assertThat(store.renew(lease, LONG)).isEmpty();
        assertThat(StoreCalls.find(store, key).orElseThrow().result()).isEqualTo(bytes("first"));
    }

    @Test
    @DisplayName("release lets the next claim acquire at once with a greater token")
    void releaseFreesKey() {
        IdempotencyKey key = key("release-1");
        Lease first = acquire(key);
        assertThat(store.release(first)).isTrue();

        Lease second = acquire(key);

        assertThat(second.token()).isGreaterThan(first.token());
        assertThat(StoreCalls.complete(store, first, bytes("stale"), RETENTION)).isFalse();
        assertThat(store.release(first)).isFalse();
        assertThat(StoreCalls.complete(store, second, bytes("fresh"), RETENTION)).isTrue();
        assertThat(StoreCalls.find(store, key).orElseThrow().result()).isEqualTo(bytes("fresh"));
    }

    @Test
    @DisplayName("renew moves the deadline and keeps the key busy past the first deadline")
    void renewKeepsLease() {
        IdempotencyKey key = key("renew-1");
        // Twice the short lease, renewed every fifth of it for one and a half leases (past the first deadline):
        // only a stall of four fifths of the lease between two renewals could let it lapse.
        Duration lease = shortLease().multipliedBy(2);
        Lease current = acquire(key, "fp", lease);
        Instant firstDeadline = current.deadline();
        long renewUntil = System.nanoTime() + lease.multipliedBy(3).dividedBy(2).toNanos();

        while (System.nanoTime() < renewUntil) {
            Optional<Lease> renewed = store.renew(current, lease);
            assertThat(renewed).as("renewal of a live lease").isPresent();
            assertThat(renewed.get().token()).isEqualTo(current.token());
            current = renewed.get();
            assertThat(StoreCalls.claim(store, request(key, "fp", lease))).isInstanceOf(ClaimResult.Busy.class);
            long next = System.nanoTime() + lease.toNanos() / 5; // pace renewals at a fifth of the lease
            await().atMost(lease).pollInterval(Duration.ofMillis(10)).until(() -> System.nanoTime() >= next);
        }

        assertThat(current.deadline()).isAfter(firstDeadline);
        assertThat(StoreCalls.complete(store, current, bytes("done"), RETENTION)).isTrue();
    }

    @Test
    @DisplayName("an expired lease is taken over with a greater token and the stale owner is refused")
    void expiredLeaseIsTakenOver() {
        IdempotencyKey key = key("takeover-1");
        Lease stale = acquire(key, "fp", shortLease());

        ClaimResult taken = await().atMost(shortLease().multipliedBy(10)).pollInterval(Duration.ofMillis(50))
                .until(() -> StoreCalls.claim(store, request(key, "fp", LONG)), r -> r instanceof ClaimResult.Acquired);
        Lease fresh = ((ClaimResult.Acquired) taken).lease();

        assertThat(fresh.token()).isGreaterThan(stale.token());
        assertThat(store.renew(stale, LONG)).isEmpty();
        assertThat(StoreCalls.complete(store, stale, bytes("stale"), RETENTION)).isFalse();
        assertThat(store.release(stale)).isFalse();
        assertThat(StoreCalls.find(store, key).orElseThrow().token()).isEqualTo(fresh.token());
        assertThat(StoreCalls.complete(store, fresh, bytes("fresh"), RETENTION)).isTrue();
        assertThat(StoreCalls.find(store, key).orElseThrow().result()).isEqualTo(bytes("fresh"));
    }

    @Test
    @DisplayName("an expired lease can no longer be completed even before anyone takes it over")
    void lapsedLeaseCannotComplete() {
        IdempotencyKey key = key("lapsed-1");
        Lease lease = acquire(key, "fp", shortLease());

        Instant lapsed = lease.deadline().plusMillis(100);
        await().atMost(shortLease().multipliedBy(10)).until(() -> Instant.now().isAfter(lapsed));

        assertThat(StoreCalls.complete(store, lease, bytes("late"), RETENTION)).isFalse();
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
}
