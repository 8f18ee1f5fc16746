package io.github.once.testkit;

import io.github.once.IdempotencyKey;
import io.github.once.RecordState;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;
import io.github.once.spi.StoreInspector;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The contract every {@link StoreInspector} must pass, on records its own store wrote. Extend it, supply the
 * store and its inspector, and run it against the real service:
 *
 * <pre>{@code
 * class MyStoreInspectorTest extends StoreInspectorContract {
 *     protected IdempotencyStore createStore() { return new MyStore(...); }
 *     protected StoreInspector inspectorOf(IdempotencyStore store) { return ((MyStore) store).inspector(); }
 * }
 * }</pre>
 *
 * Each test works in random namespaces of its own, so runs may share one service; waits are bounded polls.
 */
public abstract class StoreInspectorContract {

    private static final Duration LONG = Duration.ofMinutes(5);
    private static final Duration RETENTION = Duration.ofHours(1);
    /** How far the store's clock may stand from this JVM's. */
    private static final Duration SKEW = Duration.ofSeconds(5);

    protected IdempotencyStore store;
    protected StoreInspector inspector;
    protected String namespace;

    /** A new store for each test; it is closed after the test. */
    protected abstract IdempotencyStore createStore();

    /** The inspector of {@code store}'s records. */
    protected abstract StoreInspector inspectorOf(IdempotencyStore store);

    /** A lease short enough to wait out in a test, long enough that the store answers well within it. */
    protected Duration shortLease() {
        return Duration.ofMillis(500);
    }

    @BeforeEach
    void openStore() {
        store = createStore();
        inspector = inspectorOf(store);
        namespace = "i" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
    }

    @AfterEach
    void closeStore() throws Exception {
        if (store != null) {
            store.close();
        }
    }

    private IdempotencyKey key(String id) {
        return IdempotencyKey.of(namespace, id);
    }

    private Lease claim(IdempotencyKey key, Duration lease, Duration retention) {
        ClaimResult result = StoreCalls.claim(store, new ClaimRequest(key, "fp-1", lease, retention));
        assertThat(result).as("claim of %s", key).isInstanceOf(ClaimResult.Acquired.class);
        return ((ClaimResult.Acquired) result).lease();
    }

    private Lease claim(IdempotencyKey key) {
        return claim(key, LONG, RETENTION);
    }

    private void complete(IdempotencyKey key, String result) {
        assertThat(StoreCalls.complete(store, claim(key), result.getBytes(StandardCharsets.UTF_8), RETENTION)).isTrue();
    }

    private void release(IdempotencyKey key) {
        assertThat(store.release(claim(key))).isTrue();
    }

    /** Claims with a short lease and waits until the store's clock has passed it. */
    private void lapse(IdempotencyKey key) {
        claim(key, shortLease(), RETENTION);
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> standing(key) != StoreInspector.Standing.IN_PROGRESS);
    }

    /** Claims with a short retention and waits until the store treats the record as gone. */
    private void expire(IdempotencyKey key) {
        claim(key, Duration.ofMillis(50), Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
                .until(() -> inspector.inspect(key).isEmpty());
    }

    private StoreInspector.Standing standing(IdempotencyKey key) {
        return inspector.inspect(key).orElseThrow().standing();
    }

    private StoreInspector.Standing releasedStanding() {
        return inspector.tellsReleasedFromLapsed() ? StoreInspector.Standing.RELEASED : StoreInspector.Standing.LAPSED;
    }

    @Test
    @DisplayName("an absent key has no record and an empty namespace counts nothing")
    void absentKeyIsNotFound() {
        assertThat(inspector.inspect(key("never"))).isEmpty();
        StoreInspector.Counts counts = inspector.count(namespace);
        assertThat(counts).isEqualTo(new StoreInspector.Counts(counts.now(), 0, 0, 0, 0, 0));
        assertThat(inspector.oldestInProgress(namespace, 10)).isEmpty();
    }

    @Test
    @DisplayName("a live claim is in progress, with its token and claim time")
    void liveClaimIsInProgress() {
        Instant before = Instant.now();
        Lease lease = claim(key("live"));
        Instant after = Instant.now();

        StoreInspector.Inspected found = inspector.inspect(key("live")).orElseThrow();

        assertThat(found.standing()).isEqualTo(StoreInspector.Standing.IN_PROGRESS);
        assertThat(found.record().key()).isEqualTo(key("live"));
        assertThat(found.record().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(found.record().token()).isEqualTo(lease.token());
        assertThat(found.record().fingerprint()).isEqualTo("fp-1");
        assertThat(found.claimedAt()).isBetween(before.minus(SKEW), after.plus(SKEW));
    }

    @Test
    @DisplayName("a completed record shows its result")
    void completedRecordShowsItsResult() {
        complete(key("done"), "charged 42");

        StoreInspector.Inspected found = inspector.inspect(key("done")).orElseThrow();

        assertThat(found.standing()).isEqualTo(StoreInspector.Standing.COMPLETED);
        assertThat(found.record().result()).isEqualTo("charged 42".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    @DisplayName("a released claim is released (or lapsed where the store cannot tell), until the retry claims it")
    void releasedClaimIsReleasedUntilTheRetry() {
        release(key("failed"));

        assertThat(standing(key("failed"))).isEqualTo(releasedStanding());

        Lease retry = claim(key("failed"));
        assertThat(standing(key("failed"))).isEqualTo(StoreInspector.Standing.IN_PROGRESS);
        assertThat(store.release(retry)).isTrue();
        assertThat(standing(key("failed"))).isEqualTo(releasedStanding());
    }

    @Test
    @DisplayName("a lease that ran out without a release is lapsed, never released")
    void lapsedLeaseIsLapsed() {
        release(key("taken-over"));
        // The retry takes the released key over and then dies: its own lease runs out.
        lapse(key("taken-over"));
        lapse(key("died"));

        assertThat(standing(key("died"))).isEqualTo(StoreInspector.Standing.LAPSED);
        assertThat(standing(key("taken-over"))).isEqualTo(StoreInspector.Standing.LAPSED);
    }

    @Test
    @DisplayName("counts are by standing and by exact namespace")
    void countsByStandingPerNamespace() {
        String sibling = namespace + "-b";
        complete(key("done-1"), "a");
        complete(key("done-2"), "b");
        claim(key("live"));
        release(key("failed"));
        lapse(key("died"));
        claim(IdempotencyKey.of(sibling, "live"));

        Instant before = Instant.now();
        StoreInspector.Counts counts = inspector.count(namespace);
        Instant after = Instant.now(); // the counts of all namespaces below may take long on a big shared store
        StoreInspector.Counts siblings = inspector.count(sibling);
        StoreInspector.Counts all = inspector.count(null);

        long released = inspector.tellsReleasedFromLapsed() ? 1 : 0;
        assertThat(counts).isEqualTo(new StoreInspector.Counts(counts.now(), 1, released, 2 - released, 2, 0));
        assertThat(siblings).isEqualTo(new StoreInspector.Counts(siblings.now(), 1, 0, 0, 0, 0));
        assertThat(all.inProgress()).isGreaterThanOrEqualTo(2);
        assertThat(all.completed()).isGreaterThanOrEqualTo(2);
        assertThat(counts.now()).isBetween(before.minus(SKEW), after.plus(SKEW));
    }

    @Test
    @DisplayName("the oldest open claims come oldest first, without released or completed records")
    void oldestInProgressComeOldestFirst() {
        lapse(key("oldest"));
        claim(key("middle"));
        claim(key("newest"));
        release(key("failed"));
        complete(key("done"), "x");

        List<StoreInspector.Summary> open = inspector.oldestInProgress(namespace, 10);

        List<String> expected = inspector.tellsReleasedFromLapsed() ? List.of("oldest", "middle", "newest")
                : List.of("oldest", "middle", "newest", "failed");
        assertThat(open).extracting(StoreInspector.Summary::storageId).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(open.get(0).storageId()).isEqualTo("oldest");
        assertThat(open.get(0).standing()).isEqualTo(StoreInspector.Standing.LAPSED);
        assertThat(open).extracting(StoreInspector.Summary::claimedAt).isSorted();
        assertThat(open).allMatch(r -> r.namespace().equals(namespace));
        assertThat(open.stream().filter(r -> !r.storageId().equals("oldest") && !r.storageId().equals("failed")))
                .allMatch(r -> r.standing() == StoreInspector.Standing.IN_PROGRESS && r.leaseUntil().isAfter(r.claimedAt()));
        assertThat(inspector.oldestInProgress(namespace, 1)).extracting(StoreInspector.Summary::storageId)
                .containsExactly("oldest");
    }

    @Test
    @DisplayName("a purge deletes expired records of one namespace in bounded batches, and nothing else")
    void purgeIsPerNamespaceAndBounded() {
        String sibling = namespace + "-b";
        claim(key("live"));
        complete(key("done"), "kept");
        expire(key("old-1"));
        expire(key("old-2"));
        expire(key("old-3"));
        expire(IdempotencyKey.of(sibling, "old"));

        if (inspector.expiresRecordsItself()) {
            assertThat(inspector.purgeExpired(namespace, 10)).isZero();
        } else {
            assertThat(inspector.count(namespace).expired()).isEqualTo(3);
            assertThat(inspector.purgeExpired(namespace, 2)).isEqualTo(2);
            assertThat(inspector.purgeExpired(namespace, 2)).isEqualTo(1);
            assertThat(inspector.purgeExpired(namespace, 2)).isZero();
            assertThat(inspector.count(namespace).expired()).isZero();
            assertThat(inspector.count(sibling).expired()).isEqualTo(1);
            assertThat(inspector.purgeExpired(sibling, 10)).isEqualTo(1);
        }
        assertThat(inspector.inspect(key("live"))).isPresent();
        assertThat(inspector.inspect(key("done"))).isPresent();
        StoreInspector.Counts left = inspector.count(namespace);
        assertThat(left).isEqualTo(new StoreInspector.Counts(left.now(), 1, 0, 0, 1, 0));
    }

    @Test
    @DisplayName("deleting a namespace removes its records in bounded batches, whatever their standing, and no other's")
    void deleteNamespaceIsBoundedAndLeavesOtherNamespaces() {
        String sibling = namespace + "-b";
        claim(key("live"));
        complete(key("done"), "gone");
        release(key("given-back"));
        complete(IdempotencyKey.of(sibling, "kept"), "kept");

        assertThat(inspector.deleteNamespace(namespace, 2)).isEqualTo(2);
        assertThat(inspector.deleteNamespace(namespace, 2)).isEqualTo(1);
        assertThat(inspector.deleteNamespace(namespace, 2)).isZero();

        assertThat(inspector.inspect(key("live"))).isEmpty();
        assertThat(inspector.inspect(key("done"))).isEmpty();
        assertThat(inspector.inspect(key("given-back"))).isEmpty();
        assertThat(inspector.inspect(IdempotencyKey.of(sibling, "kept"))).isPresent();
        assertThat(StoreCalls.claim(store, new ClaimRequest(key("done"), "fp-1", LONG, RETENTION)))
                .as("a deleted key is new again").isInstanceOf(ClaimResult.Acquired.class);
    }
}
