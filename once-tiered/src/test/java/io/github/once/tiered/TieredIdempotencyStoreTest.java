package io.github.once.tiered;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.Outcome;
import io.github.once.RecordState;
import io.github.once.ResultCodec;
import io.github.once.Task;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;
import io.github.once.tiered.internal.FrontCopy;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

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
    private final TieredIdempotencyStore store = TieredIdempotencyStore.builder(front, records)
            .clock(clock)
            .frontPause(Duration.ofSeconds(1))
            .build();
    private final Idempotency once = Idempotency.builder(store).build();
    private final IdempotencyKey key = IdempotencyKey.of("orders", "order-1");

    /** The system clock, moved forward by hand: the in-memory stores keep the system clock. */
    static final class ShiftedClock extends Clock {
        private volatile Duration shift = Duration.ZERO;

        void advance(Duration by) {
            shift = shift.plus(by);
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return Instant.now().plus(shift);
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

    /** Waits until every copy queued has been written: they are written off the caller's thread. */
    private static void awaitCopies(TieredIdempotencyStore tiered) {
        await().atMost(COPY_WAIT).until(() -> tiered.copiesPending() == 0);
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

    private static boolean copied(SeverableStore front, IdempotencyKey key) {
        return front.peek(key).map(r -> r.state() == RecordState.COMPLETED).orElse(false);
    }

    @Test
    @DisplayName("a duplicate of a completed record is answered by the front alone, with the record's token and result")
    void frontAnswersDuplicates() {
        Outcome<String> first = run("order");
        long token = ((Outcome.Processed<String>) first).token();
        awaitCopies(store);
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
        awaitCopies(store);
        resetCounts();

        List<Outcome<String>> again = once.executeAll(tasks);

        assertThat(again).allMatch(o -> o instanceof Outcome.Duplicate);
        assertThat(((Outcome.Duplicate<String>) again.get(2)).result()).isEqualTo("receipt-batch-2");
        assertThat(records.calls).as("store of record calls").hasValue(0);
        assertThat(front.calls).as("front calls").hasValue(1);
        assertThat(front.reads).last().isEqualTo(3);
        assertThat(store.frontHits()).isEqualTo(3);
    }

    @Test
    @DisplayName("another payload under a completed key is a conflict, answered by the front alone")
    void frontAnswersConflicts() {
        run("order");
        awaitCopies(store);
        resetCounts();

        assertThat(run("another order")).isInstanceOf(Outcome.Conflict.class);
        assertThat(records.calls).hasValue(0);
    }

    @Test
    @DisplayName("keys in progress and new keys go to the store of record")
    void inProgressGoesToRecords() {
        ClaimRequest request = claimOf(key, null);
        assertThat(StoreCalls.claim(store, request)).isInstanceOf(ClaimResult.Acquired.class);
        resetCounts();

        assertThat(StoreCalls.claim(store, request)).isInstanceOf(ClaimResult.Busy.class);
        assertThat(records.calls).hasValue(1);
        assertThat(front.peek(key)).isEmpty();
    }

    @Test
    @DisplayName("front flushed after the completion: the store of record answers the duplicate and the front fills again")
    void frontFlushedAfterCompletion() {
        run("order");
        awaitCopies(store);
        front.flush();
        resetCounts();

        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(records.calls).as("answered by the store of record").hasValue(1);
        awaitCopies(store);
        assertFrontAnswersTheDuplicate("answered by the refilled front");
    }

    @Test
    @DisplayName("front unreachable before the claim: the work runs on the store of record, counted, front paused")
    void frontDownBeforeClaim() {
        front.cut();

        assertThat(run("order")).isInstanceOf(Outcome.Processed.class);
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(run("another order")).isInstanceOf(Outcome.Conflict.class);
        assertThat(store.frontFailures()).as("one failure, then the front is left alone").isEqualTo(1);

        front.restore();
        clock.advance(Duration.ofSeconds(2)); // the pause is over
        resetCounts();
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(records.calls).as("the front was empty").hasValue(1);
        awaitCopies(store);
        assertFrontAnswersTheDuplicate("the front answers again");
    }

    @Test
    @DisplayName("front lost while the handler runs: the completion is recorded, the copy fails, answers stay right")
    void frontDownBetweenRecordAndCopy() {
        Outcome<String> first = once.execute(key, bytes("order"), ResultCodec.utf8(), ctx -> {
            front.cut();
            return "receipt-1";
        });

        assertThat(first).isInstanceOf(Outcome.Processed.class);
        assertThat(records.peek(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        await().atMost(COPY_WAIT).until(() -> store.frontFailures() == 1);
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        front.restore();
        awaitCopies(store);
        assertThat(front.peek(key)).as("no copy was written").isEmpty();
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
        awaitCopies(store);
        assertFrontAnswersTheDuplicate("answered by the front");
    }

    @Test
    @DisplayName("a refused completion (lease lost) writes no copy; a released key has none either")
    void refusedCompletionWritesNoCopy() {
        Lease lease = ((ClaimResult.Acquired) StoreCalls.claim(store, claimOf(key, "fp"))).lease();
        Lease forged = new Lease(key, lease.token() + 1, lease.deadline());

        assertThat(StoreCalls.complete(store, forged, new byte[] {1}, Duration.ofHours(1))).isFalse();
        // A copy is counted from before the call returns until it is written: none was queued.
        assertThat(store.copiesPending()).isZero();
        assertThat(front.peek(key)).isEmpty();
        assertThat(store.release(lease)).isTrue();
        assertThat(store.copiesPending()).isZero();
        assertThat(front.peek(key)).isEmpty();
    }

    @Test
    @DisplayName("a copy keeps the record's token, fingerprint and result, and expires no later than the record")
    void copyIsFaithful() {
        Lease lease = ((ClaimResult.Acquired) StoreCalls.claim(store, claimOf(key, "fp"))).lease();
        assertThat(StoreCalls.complete(store, lease, new byte[] {7, 0, -1}, Duration.ofHours(1))).isTrue();
        await().atMost(COPY_WAIT).until(() -> copied(front, key));

        IdempotencyRecord record = records.peek(key).orElseThrow();
        IdempotencyRecord copy = FrontCopy.decode(key, front.peek(key).orElseThrow().result());

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
        awaitCopies(store);
        IdempotencyKey fresh = IdempotencyKey.of("orders", "order-2");
        resetCounts();

        List<ClaimResult> claims = store.claim(List.of(claimOf(fresh, null), claimOf(key, null), claimOf(fresh, null)));

        assertThat(claims).hasSize(3);
        assertThat(claims.get(0)).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(claims.get(1)).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(claims.get(2)).isInstanceOf(ClaimResult.Busy.class);
        assertThat(records.calls).as("one claim call for the keys the front did not answer").hasValue(1);
    }

    @Test
    @DisplayName("the builder refuses settings that cannot work, naming them")
    void badSettingsAreRefused() {
        assertThatThrownBy(() -> TieredIdempotencyStore.builder(front, front))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("two stores");
        assertThatThrownBy(() -> TieredIdempotencyStore.builder(front, records).maxCopiesInFlight(0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxCopiesInFlight");
        assertThatThrownBy(() -> TieredIdempotencyStore.builder(front, records).frontPause(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("frontPause");
    }

    @Test
    @DisplayName("the caller does not wait for the copy: a completion returns while the front holds it; it lands once let go")
    void completionReturnsWhileTheCopyIsHeld() {
        front.holdWrites();

        CompletableFuture<Outcome<String>> first = CompletableFuture.supplyAsync(() -> run("order"));

        await("the completion returned with its copy held").atMost(COPY_WAIT).until(first::isDone);
        assertThat(first.join()).isInstanceOf(Outcome.Processed.class);
        assertThat(records.peek(key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(store.copiesPending()).isEqualTo(1);
        assertThat(front.peek(key)).as("the copy is still held").isEmpty();

        front.letGo();

        await().atMost(COPY_WAIT).until(() -> copied(front, key));
        awaitCopies(store);
        assertFrontAnswersTheDuplicate("answered by the copy");
    }

    @Test
    @DisplayName("copies beyond the bound are skipped and counted, never waited for; a later duplicate copies them")
    void copiesBeyondTheBoundAreSkipped() {
        SeverableStore slowFront = new SeverableStore();
        TieredIdempotencyStore bounded = TieredIdempotencyStore.builder(slowFront, new SeverableStore())
                .maxCopiesInFlight(2).build();
        IdempotencyKey[] keys = {IdempotencyKey.of("orders", "b-1"), IdempotencyKey.of("orders", "b-2"),
                IdempotencyKey.of("orders", "b-3"), IdempotencyKey.of("orders", "b-4")};
        List<Task<String>> tasks = new ArrayList<>();
        for (IdempotencyKey k : keys) {
            tasks.add(new Task<>(k, bytes("order"), ResultCodec.utf8(), ctx -> "receipt"));
        }
        try (Idempotency boundedOnce = Idempotency.builder(bounded).build()) {
            slowFront.holdWrites();
            assertThat(boundedOnce.execute(tasks.get(0))).isInstanceOf(Outcome.Processed.class);
            // The writer took the first copy and waits on the front: the bound of 2 is all free again.
            await().atMost(COPY_WAIT).until(() -> slowFront.held.get() == 1);

            CompletableFuture<List<Outcome<String>>> done = CompletableFuture.supplyAsync(
                    () -> boundedOnce.executeAll(tasks.subList(1, 4)));
            await("the batch returned with its copies held").atMost(COPY_WAIT).until(done::isDone);

            assertThat(done.join()).allMatch(o -> o instanceof Outcome.Processed);
            assertThat(bounded.copiesSkipped()).as("the batch's third copy").isEqualTo(1);
            assertThat(bounded.copiesPending()).as("one being written, two queued").isEqualTo(3);

            slowFront.letGo();
            awaitCopies(bounded);
            assertThat(copied(slowFront, keys[0])).isTrue();
            assertThat(copied(slowFront, keys[1])).isTrue();
            assertThat(copied(slowFront, keys[2])).isTrue();
            assertThat(slowFront.peek(keys[3])).as("skipped").isEmpty();

            Outcome<String> again = boundedOnce.execute(tasks.get(3));
            assertThat(again).isInstanceOf(Outcome.Duplicate.class);
            await("copied by the duplicate").atMost(COPY_WAIT).until(() -> copied(slowFront, keys[3]));
            assertThat(bounded.frontFailures()).isZero();
        } finally {
            slowFront.letGo();
            bounded.close();
        }
    }

    @Test
    @DisplayName("close waits for the copies queued before it closes the front, so they do not fail on it")
    void closeWaitsForCopies() {
        front.holdWrites();
        assertThat(run("order")).isInstanceOf(Outcome.Processed.class);
        Thread closing = new Thread(store::close, "closing-tiered-store");
        closing.start();

        await("close waits").atMost(COPY_WAIT).until(() -> closing.getState() == Thread.State.TIMED_WAITING);
        assertThat(front.closed()).isFalse();
        front.letGo();

        await().atMost(COPY_WAIT).until(() -> !closing.isAlive());
        assertThat(front.closed()).isTrue();
        assertThat(copied(front, key)).as("the copy landed before the front closed").isTrue();
        assertThat(store.frontFailures()).isZero();
    }

    @Test
    @DisplayName("close gives up on a copy that never ends after 2 s and closes both stores")
    void closeWaitIsBounded() {
        front.holdWrites();
        assertThat(run("order")).isInstanceOf(Outcome.Processed.class);

        CompletableFuture<Void> closed = CompletableFuture.runAsync(store::close);

        await().atMost(COPY_WAIT).until(closed::isDone);
        assertThat(front.closed()).isTrue();
        assertThat(records.closed()).isTrue();
        assertThat(front.peek(key)).as("the held copy was not written").isEmpty();
    }

    @Test
    @DisplayName("in a transaction scope, completions are copied only after the commit, and not at all after a rollback")
    void transactionScopeCopiesAfterCommit() {
        PassThroughTransactions ofRecord = new PassThroughTransactions(records);
        TieredIdempotencyStore tiered = TieredIdempotencyStore.builder(front, ofRecord).build();
        IdempotencyKey rolledBack = IdempotencyKey.of("orders", "order-2");
        try {
            ExecutionScope scope = tiered.transactionScope();
            assertThat(scope.store()).isSameAs(tiered);
            try (ExecutionScope.Unit unit = scope.begin()) {
                Lease lease = ((ClaimResult.Acquired) unit.claim(List.of(claimOf(key, null))).get(0)).lease();
                assertThat(unit.complete(List.of(new Completion(lease, bytes("r"), Duration.ofHours(1)))))
                        .containsExactly(true);
                assertThat(tiered.copiesPending()).as("nothing queued before the commit").isZero();

                unit.commit();
            }
            await().atMost(COPY_WAIT).until(() -> copied(front, key));

            try (ExecutionScope.Unit unit = scope.begin()) {
                Lease lease = ((ClaimResult.Acquired) unit.claim(List.of(claimOf(rolledBack, null))).get(0)).lease();
                unit.complete(List.of(new Completion(lease, bytes("r"), Duration.ofHours(1))));
                unit.rollback();
            }
            awaitCopies(tiered);
            assertThat(front.peek(rolledBack)).as("no copy of a rolled-back completion").isEmpty();
        } finally {
            tiered.close();
        }
    }

    @Test
    @DisplayName("a scope joining the caller's transaction reads the front but copies nothing: the commit is not its own")
    void joiningScopeCopiesNothing() {
        run("order");
        awaitCopies(store);
        PassThroughTransactions ofRecord = new PassThroughTransactions(records);
        TieredIdempotencyStore tiered = TieredIdempotencyStore.builder(front, ofRecord).build();
        IdempotencyKey fresh = IdempotencyKey.of("orders", "order-2");
        try {
            ExecutionScope joined = tiered.joining(null);
            try (ExecutionScope.Unit unit = joined.begin()) {
                List<ClaimResult> claims = unit.claim(List.of(claimOf(key, null), claimOf(fresh, null)));
                assertThat(claims.get(0)).as("answered by the front").isInstanceOf(ClaimResult.Duplicate.class);
                Lease lease = ((ClaimResult.Acquired) claims.get(1)).lease();
                unit.complete(List.of(new Completion(lease, bytes("r"), Duration.ofHours(1))));
                unit.commit();
            }
            assertThat(tiered.frontHits()).isEqualTo(1);
            assertThat(tiered.copiesPending()).isZero();
            assertThat(front.peek(fresh)).isEmpty();
        } finally {
            tiered.close();
        }
    }

    @Test
    @DisplayName("transactional mode over a store of record without transactions is refused, naming it")
    void transactionsNeedATransactionalStoreOfRecord() {
        assertThatThrownBy(store::transactionScope).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("store of record").hasMessageContaining("runs transactions");
        assertThatThrownBy(() -> Idempotency.builder(store).transactional())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("runs transactions");
    }

    @Test
    @DisplayName("a front that fails its check leaves verify to the store of record: logged, counted, paused")
    void aFrontThatFailsItsCheckDoesNotFailVerify() {
        front.cut();
        store.verify();
        assertThat(store.frontFailures()).isEqualTo(1);
        records.cut();
        assertThatThrownBy(store::verify).isInstanceOf(io.github.once.StoreUnavailableException.class);
    }
}
