package io.github.once;

import io.github.once.internal.FrontCopy;
import io.github.once.internal.StoreCallScope;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.Lease;
import io.github.once.spi.RecordCopy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The tiered store: the front answers duplicates alone, copies are written off the caller's thread, and losing the
 * front at any step never changes an answer.
 */
class TieredIdempotencyStoreTest {

    /** How long a test waits for a copy written off the caller's thread. */
    private static final Duration COPY_WAIT = Duration.ofSeconds(5);

    private final SeverableStore front = new SeverableStore();
    private final SeverableStore records = new SeverableStore();
    private final ShiftedClock clock = new ShiftedClock();
    private final List<String> failures = new CopyOnWriteArrayList<>(); // failed copies are heard on the front's thread
    private final TieredIdempotencyStore store = TieredIdempotencyStore.builder(front, records)
            .clock(clock)
            .frontPause(Duration.ofSeconds(1))
            .listener(new TieredIdempotencyStore.Listener() {
                @Override
                public void onFrontFailure(String operation, RuntimeException failure) {
                    failures.add(operation);
                }
            })
            .build();
    private final Idempotency once = Idempotency.builder(store).build();
    private final IdempotencyKey key = IdempotencyKey.of("orders", "order-1");

    /** The system clock, moved forward by hand: the in-memory stores keep the system clock. */
    static final class ShiftedClock extends java.time.Clock {
        private volatile Duration shift = Duration.ZERO;

        void advance(Duration by) {
            shift = shift.plus(by);
        }

        @Override
        public java.time.ZoneId getZone() {
            return java.time.ZoneOffset.UTC;
        }

        @Override
        public java.time.Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public java.time.Instant instant() {
            return java.time.Instant.now().plus(shift);
        }
    }

    @AfterEach
    void close() {
        front.letGo();
        once.close();
        store.close();
    }

    private Outcome<String> run(String payload) {
        return once.execute(key, bytes(payload), ResultCodec.utf8(), ctx -> "receipt-1");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private void resetCounts() {
        front.calls.set(0);
        records.calls.set(0);
    }

    /** Waits until every copy sent to the front has been answered: they are written off the caller's thread. */
    private void awaitCopies() {
        awaitCopies(store);
    }

    private static void awaitCopies(TieredIdempotencyStore tiered) {
        await().atMost(COPY_WAIT).until(() -> tiered.copiesInFlight() == 0);
    }

    /** A claim with a lease of a minute and a retention of an hour. */
    private static ClaimRequest claimOf(IdempotencyKey key, String fingerprint) {
        return new ClaimRequest(key, fingerprint, Duration.ofMinutes(1), Duration.ofHours(1));
    }

    /** The next duplicate of the completed "order" is answered by the front, without the store of record. */
    private void assertFrontAnswersTheDuplicate(String why) {
        resetCounts();
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(records.calls).as(why).hasValue(0);
    }

    /** A tiered store over {@code front} and a store of record of its own, whose copies wait {@code delay}. */
    private static TieredIdempotencyStore withCopyDelay(SeverableStore front, Duration delay) {
        return TieredIdempotencyStore.builder(front, new SeverableStore()).copyDelay(delay).build();
    }

    private static boolean copied(SeverableStore front, IdempotencyKey key) {
        return front.find(key).map(r -> r.state() == RecordState.COMPLETED).orElse(false);
    }

    @Test
    @DisplayName("a duplicate of a completed record is answered by the front alone, with the record's token and result")
    void frontAnswersDuplicates() {
        Outcome<String> first = run("order");
        long token = ((Outcome.Processed<String>) first).token();
        awaitCopies();
        resetCounts();

        Outcome<String> again = run("order");

        assertThat(again).isInstanceOf(Outcome.Duplicate.class);
        Outcome.Duplicate<String> duplicate = (Outcome.Duplicate<String>) again;
        assertThat(duplicate.result()).isEqualTo("receipt-1");
        assertThat(duplicate.record().token()).isEqualTo(token);
        assertThat(records.calls).as("store of record calls").hasValue(0);
        assertThat(front.calls).hasValue(1);
        assertThat(store.frontHits()).isEqualTo(1);
    }

    @Test
    @DisplayName("a batch of duplicates is answered by the front with one read, without the store of record")
    void frontAnswersABatchOfDuplicatesWithOneRead() {
        List<Task<String>> tasks = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            tasks.add(new Task<>(IdempotencyKey.of("orders", "batch-" + i), bytes("order " + i), ResultCodec.utf8(),
                    ctx -> "receipt-" + ctx.key().id()));
        }
        assertThat(once.executeAll(tasks)).allMatch(o -> o instanceof Outcome.Processed);
        awaitCopies();
        resetCounts();

        List<Outcome<String>> again = once.executeAll(tasks);

        assertThat(again).allMatch(o -> o instanceof Outcome.Duplicate);
        assertThat(((Outcome.Duplicate<String>) again.get(2)).result()).isEqualTo("receipt-batch-2");
        assertThat(records.calls).as("store of record calls").hasValue(0);
        assertThat(front.calls).as("front calls").hasValue(1);
        assertThat(store.frontHits()).isEqualTo(3);
    }

    @Test
    @DisplayName("another payload under a completed key is a conflict, answered by the front alone")
    void frontAnswersConflicts() {
        run("order");
        awaitCopies();
        resetCounts();

        assertThat(run("another order")).isInstanceOf(Outcome.Conflict.class);
        assertThat(records.calls).hasValue(0);
    }

    @Test
    @DisplayName("keys in progress and new keys go to the store of record")
    void inProgressGoesToRecords() {
        ClaimRequest request = claimOf(key, null);
        assertThat(store.claim(request)).isInstanceOf(ClaimResult.Acquired.class);
        resetCounts();

        assertThat(store.claim(request)).isInstanceOf(ClaimResult.Busy.class);
        assertThat(records.calls).hasValue(1);
        assertThat(front.find(key)).isEmpty();
    }

    @Test
    @DisplayName("front flushed after the completion: the store of record answers the duplicate and the front fills again")
    void frontFlushedAfterCompletion() {
        run("order");
        awaitCopies();
        front.flush();
        resetCounts();

        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(records.calls).as("answered by the store of record").hasValue(1);
        awaitCopies();
        assertFrontAnswersTheDuplicate("answered by the refilled front");
    }

    @Test
    @DisplayName("front unreachable before the claim: the work runs on the store of record, logged and counted, no pause")
    void frontDownBeforeClaim() {
        front.cut();

        assertThat(run("order")).isInstanceOf(Outcome.Processed.class);
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(run("another order")).isInstanceOf(Outcome.Conflict.class);
        assertThat(store.frontFailures()).isEqualTo(1);
        assertThat(failures).containsExactly("find");

        front.restore();
        clock.advance(Duration.ofSeconds(2)); // the pause is over
        resetCounts();
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(records.calls).as("the front was empty").hasValue(1);
        awaitCopies();
        assertFrontAnswersTheDuplicate("the front answers again");
    }

    @Test
    @DisplayName("front lost while the handler runs: the completion is recorded, the copy is skipped, answers stay right")
    void frontDownBetweenRecordAndCopy() {
        Outcome<String> first = once.execute(key, bytes("order"), ResultCodec.utf8(), ctx -> {
            front.cut();
            return "receipt-1";
        });

        assertThat(first).isInstanceOf(Outcome.Processed.class);
        assertThat(records.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        await().atMost(COPY_WAIT).until(() -> failures.contains("copy"));
        assertThat(failures).containsExactly("copy");
        assertThat(store.frontFailures()).isEqualTo(1);
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        front.restore();
        awaitCopies();
        assertThat(front.find(key)).as("no copy was written").isEmpty();
        clock.advance(Duration.ofSeconds(2));
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        await("copied by the duplicate").atMost(COPY_WAIT).until(() -> copied(front, key));
    }

    @Test
    @DisplayName("front flushed between the claim and the completion: nothing is lost, the copy is written after")
    void frontFlushedWhileHandlerRuns() {
        Outcome<String> first = once.execute(key, bytes("order"), ResultCodec.utf8(), ctx -> {
            front.flush();
            return "receipt-1";
        });

        assertThat(first).isInstanceOf(Outcome.Processed.class);
        awaitCopies();
        assertFrontAnswersTheDuplicate("answered by the front");
    }

    @Test
    @DisplayName("a refused completion (lease lost) writes no copy; a released key has none either")
    void refusedCompletionWritesNoCopy() {
        ClaimRequest request = claimOf(key, "fp");
        Lease lease = ((ClaimResult.Acquired) store.claim(request)).lease();
        Lease forged = new Lease(key, lease.token() + 1, lease.deadline());

        assertThat(store.complete(forged, new byte[] {1}, Duration.ofHours(1))).isFalse();
        // A copy is counted in flight from before the call returns until the front answers it: none was sent.
        assertThat(store.copiesInFlight()).isZero();
        assertThat(front.find(key)).isEmpty();
        assertThat(store.release(lease)).isTrue();
        assertThat(store.copiesInFlight()).isZero();
        assertThat(front.find(key)).isEmpty();
    }

    @Test
    @DisplayName("a copy keeps the record's token, fingerprint and result, and expires no later than the record")
    void copyIsFaithful() {
        ClaimRequest request = claimOf(key, "fp");
        Lease lease = ((ClaimResult.Acquired) store.claim(request)).lease();
        assertThat(store.complete(lease, new byte[] {7, 0, -1}, Duration.ofHours(1))).isTrue();
        await().atMost(COPY_WAIT).until(() -> copied(front, key));

        IdempotencyRecord record = records.find(key).orElseThrow();
        IdempotencyRecord copy = FrontCopy.decode(key, front.find(key).orElseThrow().result());

        assertThat(copy.token()).isEqualTo(record.token());
        assertThat(copy.fingerprint()).isEqualTo("fp");
        assertThat(copy.result()).containsExactly(7, 0, -1);
        // The front answers from a copy only before the copy's own expiry, so this bounds every answer it gives.
        assertThat(copy.expiresAt()).isBeforeOrEqualTo(record.expiresAt());
    }

    @Test
    @DisplayName("a batch: the front answers the duplicates, the store of record the rest, in order")
    void batchesMergeInOrder() {
        run("order");
        awaitCopies();
        IdempotencyKey fresh = IdempotencyKey.of("orders", "order-2");
        resetCounts();

        List<ClaimResult> claims = store.claimAll(
                List.of(claimOf(fresh, null), claimOf(key, null), claimOf(fresh, null)));

        assertThat(claims).hasSize(3);
        assertThat(claims.get(0)).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(claims.get(1)).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(claims.get(2)).isInstanceOf(ClaimResult.Busy.class);
    }

    @Test
    @DisplayName("the builder and a copy refuse settings that cannot work, naming them")
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> TieredIdempotencyStore.builder(front, front))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two stores");
        assertThatThrownBy(() -> TieredIdempotencyStore.builder(front, records).copyDelay(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("copyDelay");
        assertThatThrownBy(() -> TieredIdempotencyStore.builder(front, records).maxCopiesInFlight(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxCopiesInFlight");
        assertThatThrownBy(() -> TieredIdempotencyStore.builder(front, records).frontPause(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("frontPause");
        assertThatThrownBy(() -> new RecordCopy(null, bytes("x"), Duration.ofMinutes(1)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("key");
        assertThatThrownBy(() -> new RecordCopy(key, bytes("x"), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retention");
        assertThatThrownBy(() -> store.lookAhead(Arrays.asList(key, null)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("key");
    }

    // ---------------------------------------------------------------- reading ahead

    /** Hints {@code keys} and waits until the front has been asked for them. */
    private void lookAheadAndWait(IdempotencyKey... keys) {
        int before = front.calls.get();
        store.lookAhead(List.of(keys));
        await().atMost(COPY_WAIT).until(() -> front.calls.get() > before);
    }

    @Test
    @DisplayName("a key read ahead is answered from that read: its duplicate touches neither the front again nor the store of record")
    void aKeyReadAheadIsAnsweredFromThatRead() {
        run("order");
        awaitCopies();
        lookAheadAndWait(key);
        resetCounts();

        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);

        assertThat(front.calls).as("no read of its own").hasValue(0);
        assertThat(records.calls).hasValue(0);
        assertThat(store.readAheadTaken()).isEqualTo(1);
    }

    @Test
    @DisplayName("a batch takes the answers read ahead and reads the rest with one call, in order")
    void aBatchTakesTheAnswersReadAheadAndReadsTheRest() {
        IdempotencyKey second = IdempotencyKey.of("orders", "order-2");
        IdempotencyKey fresh = IdempotencyKey.of("orders", "order-3");
        run("order");
        once.execute(second, bytes("order"), ResultCodec.utf8(), ctx -> "receipt-2");
        awaitCopies();
        lookAheadAndWait(key);
        resetCounts();

        List<ClaimResult> claims = store.claimAll(
                List.of(claimOf(key, null), claimOf(fresh, null), claimOf(second, null)));

        assertThat(claims.get(0)).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(claims.get(1)).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(claims.get(2)).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(front.calls).as("one read for the keys not read ahead").hasValue(1);
        assertThat(store.readAheadTaken()).isEqualTo(1);
        assertThat(store.claimAll(List.of(claimOf(key, null))).get(0)).as("taken once; a later claim reads again")
                .isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(store.readAheadTaken()).isEqualTo(1);
    }

    @Test
    @DisplayName("a key read ahead as absent and completed since is answered by the store of record as a duplicate")
    void aStaleAbsentReadAheadGoesToTheStoreOfRecord() {
        lookAheadAndWait(key);
        Lease elsewhere = ((ClaimResult.Acquired) records.claim(claimOf(key, null))).lease();
        assertThat(records.complete(elsewhere, bytes("receipt-0"), Duration.ofHours(1))).isTrue();
        resetCounts();

        Outcome<String> outcome = run("order");

        assertThat(outcome).isInstanceOf(Outcome.Duplicate.class);
        assertThat(((Outcome.Duplicate<String>) outcome).result()).isEqualTo("receipt-0");
        assertThat(records.calls).as("the store of record answered").hasPositiveValue();
        assertThat(store.readAheadTaken()).isEqualTo(1);
    }

    @Test
    @DisplayName("a read ahead that fails is a front failure, and its key's claim goes to the store of record")
    void aFailedReadAheadSendsTheClaimToTheStoreOfRecord() {
        run("order");
        awaitCopies();
        front.cut();
        lookAheadAndWait(key);
        await().atMost(COPY_WAIT).until(() -> failures.contains("find"));
        front.restore();
        resetCounts();

        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);

        assertThat(records.calls).as("the store of record answered").hasPositiveValue();
        assertThat(store.readAheadTaken()).isZero();
    }

    @Test
    @DisplayName("a claim waits a bounded time for a read ahead still in flight, then asks the store of record")
    void aReadAheadStillInFlightIsWaitedForABoundedTime() {
        front.hold();
        store.lookAhead(List.of(key));

        // The read is held until the end: a claim that waited for it without a bound would fail here, not hang.
        assertThat(assertTimeoutPreemptively(Duration.ofSeconds(10), () -> run("order")))
                .isInstanceOf(Outcome.Processed.class);

        assertThat(store.readAheadTaken()).isZero();
        front.letGo();
    }

    @Test
    @DisplayName("keys hinted while a read ahead is in flight are read together, in one read, once it is answered")
    void keysHintedDuringAReadAheadAreReadTogetherAfterIt() {
        IdempotencyKey second = IdempotencyKey.of("orders", "order-2");
        IdempotencyKey third = IdempotencyKey.of("orders", "order-3");
        front.hold();
        store.lookAhead(List.of(key));
        store.lookAhead(List.of(second));
        store.lookAhead(List.of(third, key)); // key is being read already

        assertThat(front.asyncReads).as("one read in flight at a time").containsExactly(1);
        front.letGo();
        await().atMost(COPY_WAIT).until(() -> front.asyncReads.size() == 2);
        assertThat(front.asyncReads).as("the keys hinted meanwhile, together").containsExactly(1, 2);
        await().atMost(COPY_WAIT).until(() -> front.calls.get() == 2);
        resetCounts();

        List<ClaimResult> claims = store.claimAll(
                List.of(claimOf(key, null), claimOf(second, null), claimOf(third, null)));

        assertThat(claims).allMatch(claim -> claim instanceof ClaimResult.Acquired);
        assertThat(front.calls).as("no read of their own").hasValue(0);
        assertThat(store.readAheadTaken()).isEqualTo(3);
    }

    @Test
    @DisplayName("when a read ahead fails, the keys hinted meanwhile are not sent, and the next hint after the pause reads at once")
    void keysHintedDuringAFailedReadAheadAreDropped() {
        IdempotencyKey second = IdempotencyKey.of("orders", "order-2");
        IdempotencyKey third = IdempotencyKey.of("orders", "order-3");
        front.cut();
        front.hold();
        store.lookAhead(List.of(key));
        store.lookAhead(List.of(second));
        front.letGo();
        await().atMost(COPY_WAIT).until(() -> failures.contains("find"));
        // The failure is heard before the store is done with the failed read; then nothing is in flight.
        await().atMost(COPY_WAIT).until(() -> !store.readingAhead());
        front.restore();
        clock.advance(Duration.ofSeconds(2)); // past the front's pause

        store.lookAhead(List.of(third));

        assertThat(front.asyncReads).as("the failed read, then the new hint alone").containsExactly(1, 1);
        assertThat(store.claim(claimOf(second, null))).as("answered by the store of record")
                .isInstanceOf(ClaimResult.Acquired.class);
        assertThat(store.readAheadTaken()).isZero();
    }

    @Test
    @DisplayName("a read ahead, once answered, sends the copies waiting")
    void aReadAheadSendsTheWaitingCopies() {
        SeverableStore patientFront = new SeverableStore();
        TieredIdempotencyStore patient = withCopyDelay(patientFront, Duration.ofHours(1));
        try (Idempotency patientOnce = Idempotency.builder(patient).build()) {
            assertThat(patientOnce.execute(key, bytes("order"), ResultCodec.utf8(), ctx -> "r1"))
                    .isInstanceOf(Outcome.Processed.class);
            assertThat(patient.copiesInFlight()).as("the copy waits").isEqualTo(1);

            patient.lookAhead(List.of(IdempotencyKey.of("orders", "order-2")));

            await("sent after the read ahead").atMost(COPY_WAIT).until(() -> copied(patientFront, key));
            await().atMost(COPY_WAIT).until(() -> patient.copiesInFlight() == 0);
        } finally {
            patient.close();
        }
    }

    @Test
    @DisplayName("the caller does not wait for the copy: a completion returns while the front holds it; it lands once let go")
    void completionReturnsWhileTheCopyIsHeld() {
        front.hold();

        CompletableFuture<Outcome<String>> first = CompletableFuture.supplyAsync(() -> run("order"));

        await("the completion returned with its copy held").atMost(COPY_WAIT).until(first::isDone);
        assertThat(first.join()).isInstanceOf(Outcome.Processed.class);
        assertThat(records.find(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(store.copiesInFlight()).isEqualTo(1);
        assertThat(front.find(key)).as("the copy is still held").isEmpty();

        front.letGo();

        await().atMost(COPY_WAIT).until(() -> copied(front, key));
        assertThat(store.copiesInFlight()).isZero();
        assertFrontAnswersTheDuplicate("answered by the copy");
    }

    @Test
    @DisplayName("copies beyond the in-flight bound are skipped and counted, never waited for; a later duplicate copies them")
    void copiesBeyondTheBoundAreSkipped() {
        SeverableStore slowFront = new SeverableStore();
        SeverableStore ofRecord = new SeverableStore();
        TieredIdempotencyStore bounded = TieredIdempotencyStore.builder(slowFront, ofRecord).maxCopiesInFlight(2)
                .build();
        IdempotencyKey[] keys = {IdempotencyKey.of("orders", "b-1"), IdempotencyKey.of("orders", "b-2"),
                IdempotencyKey.of("orders", "b-3"), IdempotencyKey.of("orders", "b-4")};
        try (Idempotency boundedOnce = Idempotency.builder(bounded).build()) {
            slowFront.hold();
            List<Task<String>> batch = new ArrayList<>();
            for (IdempotencyKey k : keys) {
                batch.add(new Task<>(k, bytes("order"), ResultCodec.utf8(), ctx -> "receipt"));
            }

            CompletableFuture<List<Outcome<String>>> done = CompletableFuture.supplyAsync(
                    () -> boundedOnce.executeAll(batch.subList(0, 3)));
            await("the batch returned with two copies held").atMost(COPY_WAIT).until(done::isDone);
            CompletableFuture<Outcome<String>> single = CompletableFuture.supplyAsync(
                    () -> boundedOnce.executeAll(batch.subList(3, 4)).get(0));
            await("the next call returned at once, the bound reached").atMost(COPY_WAIT).until(single::isDone);

            assertThat(done.join()).allMatch(o -> o instanceof Outcome.Processed);
            assertThat(single.join()).isInstanceOf(Outcome.Processed.class);
            assertThat(bounded.copiesInFlight()).isEqualTo(2);
            assertThat(bounded.copiesSkipped()).as("the batch's third copy and the next call's").isEqualTo(2);

            slowFront.letGo();
            awaitCopies(bounded);
            assertThat(copied(slowFront, keys[0])).isTrue();
            assertThat(copied(slowFront, keys[1])).isTrue();
            assertThat(slowFront.find(keys[2])).as("skipped").isEmpty();
            assertThat(slowFront.find(keys[3])).as("skipped").isEmpty();

            Outcome<String> again = boundedOnce.execute(keys[3], bytes("order"), ResultCodec.utf8(), ctx -> "x");
            assertThat(again).isInstanceOf(Outcome.Duplicate.class);
            await("copied by the duplicate").atMost(COPY_WAIT).until(() -> copied(slowFront, keys[3]));
            assertThat(bounded.frontFailures()).isZero();
        } finally {
            slowFront.letGo();
            bounded.close();
        }
    }

    @Test
    @DisplayName("a copy waits for the next look-up of the front and is sent once that look-up is answered")
    void aCopyIsSentAfterTheNextLookUp() {
        SeverableStore patientFront = new SeverableStore();
        TieredIdempotencyStore patient = withCopyDelay(patientFront, Duration.ofHours(1));
        IdempotencyKey next = IdempotencyKey.of("orders", "order-2");
        try (Idempotency patientOnce = Idempotency.builder(patient).build()) {
            assertThat(patientOnce.execute(key, bytes("order"), ResultCodec.utf8(), ctx -> "r1"))
                    .isInstanceOf(Outcome.Processed.class);
            assertThat(patient.copiesInFlight()).as("the copy waits").isEqualTo(1);
            assertThat(patientFront.find(key)).as("not sent before a look-up").isEmpty();

            assertThat(patientOnce.execute(next, bytes("order"), ResultCodec.utf8(), ctx -> "r2"))
                    .isInstanceOf(Outcome.Processed.class);

            await("sent after the second claim's look-up").atMost(COPY_WAIT).until(() -> copied(patientFront, key));
            await().atMost(COPY_WAIT).until(() -> patient.copiesInFlight() == 1);
            assertThat(patientFront.find(next)).as("the second copy waits for the next look-up").isEmpty();
        } finally {
            patient.close();
        }
    }

    @Test
    @DisplayName("with no look-up, a copy is sent when the copy delay is over")
    void aCopyIsSentWhenTheDelayIsOver() {
        SeverableStore quietFront = new SeverableStore();
        TieredIdempotencyStore quiet = withCopyDelay(quietFront, Duration.ofMillis(50));
        try (Idempotency quietOnce = Idempotency.builder(quiet).build()) {
            assertThat(quietOnce.execute(key, bytes("order"), ResultCodec.utf8(), ctx -> "r1"))
                    .isInstanceOf(Outcome.Processed.class);

            await("no further call looks the front up").atMost(COPY_WAIT).until(() -> copied(quietFront, key));
            assertThat(quiet.copiesInFlight()).isZero();
        } finally {
            quiet.close();
        }
    }

    @Test
    @DisplayName("close sends the copies still waiting before it closes the front")
    void closeSendsTheWaitingCopies() {
        SeverableStore patientFront = new SeverableStore();
        TieredIdempotencyStore patient = withCopyDelay(patientFront, Duration.ofHours(1));
        try (Idempotency patientOnce = Idempotency.builder(patient).build()) {
            assertThat(patientOnce.execute(key, bytes("order"), ResultCodec.utf8(), ctx -> "r1"))
                    .isInstanceOf(Outcome.Processed.class);
        }
        int before = patientFront.calls.get();
        assertThat(patient.copiesInFlight()).isEqualTo(1);

        patient.close();

        assertThat(patient.copiesInFlight()).as("sent and answered, not left for the hour-long delay").isZero();
        assertThat(patientFront.calls.get() - before).as("the copy's claim and completion").isEqualTo(2);
        assertThat(patient.frontFailures()).isZero();
    }

    @Test
    @DisplayName("close waits for the copies in flight before it closes the front, so they do not fail on it")
    void closeWaitsForCopiesInFlight() {
        front.hold();
        assertThat(run("order")).isInstanceOf(Outcome.Processed.class);
        Thread closing = new Thread(store::close, "closing-tiered-store");
        closing.start();

        await("close waits").atMost(COPY_WAIT)
                .until(() -> closing.getState() == Thread.State.TIMED_WAITING);
        assertThat(front.closed()).isFalse();
        front.letGo();

        await().atMost(COPY_WAIT).until(() -> !closing.isAlive());
        assertThat(front.closed()).isTrue();
        assertThat(failures).as("the copy landed before the front closed").isEmpty();
        assertThat(store.copiesInFlight()).isZero();
    }

    @Test
    @DisplayName("close gives up on a copy that never ends after 2 s and closes both stores")
    void closeWaitIsBounded() {
        front.hold();
        assertThat(run("order")).isInstanceOf(Outcome.Processed.class);

        CompletableFuture<Void> closed = CompletableFuture.runAsync(store::close);

        await().atMost(COPY_WAIT).until(closed::isDone);
        assertThat(front.closed()).isTrue();
        assertThat(records.closed()).isTrue();
        assertThat(store.copiesInFlight()).as("the held copy").isEqualTo(1);
    }

    @Test
    @DisplayName("the async calls: the front answers duplicates, the store of record the rest, and completions are copied")
    void asyncCallsAskTheFrontFirstAndCopyCompletions() {
        run("order");
        awaitCopies();
        IdempotencyKey fresh = IdempotencyKey.of("orders", "order-2");
        resetCounts();

        List<ClaimResult> claims = store.claimAllAsync(List.of(claimOf(fresh, "fp"), claimOf(key, null)))
                .toCompletableFuture().join();

        assertThat(claims.get(0)).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(claims.get(1)).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(records.calls).as("the store of record claimed the new key only").hasValue(1);
        Lease lease = ((ClaimResult.Acquired) claims.get(0)).lease();
        List<Boolean> done = store.completeAllAsync(List.of(new Completion(lease, bytes("r"), Duration.ofHours(1))))
                .toCompletableFuture().join();
        assertThat(done).containsExactly(true);
        await().atMost(COPY_WAIT).until(() -> copied(front, fresh));
        assertThat(FrontCopy.decode(fresh, front.find(fresh).orElseThrow().result()).fingerprint()).isEqualTo("fp");
    }

    @Test
    @DisplayName("in a scope, a completion is copied only after the commit")
    void scopeCopiesAfterCommit() {
        ExecutionScope scope = store.over(new StoreCallScope(records));
        try (ExecutionScope.Unit unit = scope.begin()) {
            ClaimResult claim = unit.claim(claimOf(key, null));
            Lease lease = ((ClaimResult.Acquired) claim).lease();
            assertThat(unit.complete(new Completion(lease, bytes("r"), Duration.ofHours(1)))).isTrue();

            assertThat(store.copiesInFlight()).as("nothing sent before the commit").isZero();
            assertThat(front.find(key)).isEmpty();

            unit.commit();
        }
        await().atMost(COPY_WAIT).until(() -> copied(front, key));
    }
}
