package io.github.once;

import io.github.once.internal.FrontCopy;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Lease;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The tiered store: the front answers duplicates alone, and losing it at any step never changes an answer. */
class TieredIdempotencyStoreTest {

    private final SeverableStore front = new SeverableStore();
    private final SeverableStore records = new SeverableStore();
    private final ShiftedClock clock = new ShiftedClock();
    private final List<String> failures = new ArrayList<>();
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
        once.close();
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

    @Test
    @DisplayName("a duplicate of a completed record is answered by the front alone, with the record's token and result")
    void frontAnswersDuplicates() {
        Outcome<String> first = run("order");
        long token = ((Outcome.Processed<String>) first).token();
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
        resetCounts();

        assertThat(run("another order")).isInstanceOf(Outcome.Conflict.class);
        assertThat(records.calls).hasValue(0);
    }

    @Test
    @DisplayName("keys in progress and new keys go to the store of record")
    void inProgressGoesToRecords() {
        ClaimRequest request = new ClaimRequest(key, null, Duration.ofMinutes(1), Duration.ofHours(1));
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
        front.flush();
        resetCounts();

        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(records.calls).as("answered by the store of record").hasValue(1);
        resetCounts();
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(records.calls).as("answered by the refilled front").hasValue(0);
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
        resetCounts();
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(records.calls).as("the front answers again").hasValue(0);
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
        assertThat(failures).containsExactly("copy");
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        front.restore();
        assertThat(front.find(key)).as("no copy was written").isEmpty();
        clock.advance(Duration.ofSeconds(2));
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(front.find(key)).as("copied by the duplicate").isPresent();
    }

    @Test
    @DisplayName("front flushed between the claim and the completion: nothing is lost, the copy is written after")
    void frontFlushedWhileHandlerRuns() {
        Outcome<String> first = once.execute(key, bytes("order"), ResultCodec.utf8(), ctx -> {
            front.flush();
            return "receipt-1";
        });

        assertThat(first).isInstanceOf(Outcome.Processed.class);
        resetCounts();
        assertThat(run("order")).isInstanceOf(Outcome.Duplicate.class);
        assertThat(records.calls).hasValue(0);
    }

    @Test
    @DisplayName("a refused completion (lease lost) writes no copy; a released key has none either")
    void refusedCompletionWritesNoCopy() {
        ClaimRequest request = new ClaimRequest(key, "fp", Duration.ofMinutes(1), Duration.ofHours(1));
        Lease lease = ((ClaimResult.Acquired) store.claim(request)).lease();
        Lease forged = new Lease(key, lease.token() + 1, lease.deadline());

        assertThat(store.complete(forged, new byte[] {1}, Duration.ofHours(1))).isFalse();
        assertThat(front.find(key)).isEmpty();
        assertThat(store.release(lease)).isTrue();
        assertThat(front.find(key)).isEmpty();
    }

    @Test
    @DisplayName("a copy keeps the record's token, fingerprint and result, and expires no later than the record")
    void copyIsFaithful() {
        ClaimRequest request = new ClaimRequest(key, "fp", Duration.ofMinutes(1), Duration.ofHours(1));
        Lease lease = ((ClaimResult.Acquired) store.claim(request)).lease();
        assertThat(store.complete(lease, new byte[] {7, 0, -1}, Duration.ofHours(1))).isTrue();

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
        IdempotencyKey fresh = IdempotencyKey.of("orders", "order-2");
        resetCounts();

        List<ClaimResult> claims = store.claimAll(List.of(
                new ClaimRequest(fresh, null, Duration.ofMinutes(1), Duration.ofHours(1)),
                new ClaimRequest(key, null, Duration.ofMinutes(1), Duration.ofHours(1)),
                new ClaimRequest(fresh, null, Duration.ofMinutes(1), Duration.ofHours(1))));

        assertThat(claims).hasSize(3);
        assertThat(claims.get(0)).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(claims.get(1)).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(claims.get(2)).isInstanceOf(ClaimResult.Busy.class);
    }
}
