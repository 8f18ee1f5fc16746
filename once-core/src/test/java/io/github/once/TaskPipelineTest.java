package io.github.once;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The staged executor ({@link Idempotency#pipeline}) on the in-memory store: every outcome is the one
 * {@code execute} answers for the same task on the same records; claims and completions go out in calls that
 * carry what accumulated while the previous one was in flight; handlers run in submission order; a repeated key
 * waits for the earlier one's outcome; a store that goes away fails the tasks it could not answer for, and the keys
 * claimed for handlers that never ran are given back.
 */
class TaskPipelineTest {

    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration PAST_LEASE = LEASE.plusSeconds(1);

    /** Refuses to encode "unencodable" and to decode a result of format v1. */
    private static final ResultCodec<String> CODEC = new ResultCodec<>() {
        @Override
        public byte[] encode(String value) {
            if (value.equals("unencodable")) {
                throw new IllegalArgumentException("cannot encode " + value);
            }
            return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            String text = new String(bytes, StandardCharsets.UTF_8);
            if (text.startsWith("v1:")) {
                throw new IllegalArgumentException("cannot read a result of format v1");
            }
            return text;
        }
    };

    private final IdempotencyConfig config = IdempotencyConfig.custom().leaseDuration(LEASE)
            .retention(Duration.ofHours(1)).crashLoopAfter(1).maxResultBytes(1024).build();
    private final Semaphore wakes = new Semaphore(0);
    private final Heard heard = new Heard();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    /** What the executor's listener heard, and on which threads (renewals aside). */
    private static final class Heard implements OnceListener {
        final List<String> storeCalls = new CopyOnWriteArrayList<>();
        final List<IdempotencyKey> handlers = new CopyOnWriteArrayList<>();
        final List<IdempotencyKey> takeovers = new CopyOnWriteArrayList<>();
        final List<Outcome<?>> outcomes = new CopyOnWriteArrayList<>();
        final Map<String, Boolean> threads = new ConcurrentHashMap<>();

        @Override
        public void onStoreCall(StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
            if (operation != StoreOperation.RENEW) {
                storeCalls.add(operation + ":" + keys + (failure == null ? "" : ":failed"));
                threads.put(Thread.currentThread().getName(), true);
            }
        }

        @Override
        public void onHandler(IdempotencyKey key, Duration elapsed, Throwable failure) {
            handlers.add(key);
        }

        @Override
        public void onTakeover(Lease lease) {
            takeovers.add(lease.key());
        }

        @Override
        public void onOutcome(Outcome<?> outcome, Duration elapsed) {
            outcomes.add(outcome);
            threads.put(Thread.currentThread().getName(), true);
        }
    }

    private Idempotency executor(IdempotencyStore store) {
        Idempotency once = Idempotency.builder(store).config(config).listener(heard).build();
        closing.add(once);
        return once;
    }

    private AnswerLaterStore answerLater(IdempotencyStore inner) {
        AnswerLaterStore store = new AnswerLaterStore(inner);
        closing.add(store);
        return store;
    }

    private TaskPipeline<String> pipeline(Idempotency once, int maxPerCall) {
        return once.pipeline(maxPerCall, wakes::release);
    }

    private static IdempotencyKey key(String id) {
        return IdempotencyKey.of("pipe", id);
    }

    private static Task<String> task(String id, Handler<String> handler) {
        return new Task<>(key(id), id.getBytes(StandardCharsets.UTF_8), CODEC, handler);
    }

    private static ClaimRequest request(String id, String payload) {
        return new ClaimRequest(key(id), IdempotencyConfig.defaults().fingerprint()
                .of(payload.getBytes(StandardCharsets.UTF_8)), LEASE, Duration.ofHours(1));
    }

    private static ClaimResult claimNow(IdempotencyStore store, String id) {
        return store.claim(request(id, id));
    }

    /** Steps the pipeline until {@code done}, waiting for the store's wake-up whenever a step does nothing. */
    private void drive(TaskPipeline<String> pipeline, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean()) {
            if (!pipeline.step()) {
                long left = deadline - System.nanoTime();
                assertThat(left > 0 && wakes.tryAcquire(left, TimeUnit.NANOSECONDS))
                        .as("the pipeline was woken within 10 s").isTrue();
            }
        }
    }

    /** Submits every task and collects each outcome, or the failure its stage ended with, by id. */
    private static final class Results {
        final Map<String, Outcome<String>> outcomes = new ConcurrentHashMap<>();
        final Map<String, Throwable> failures = new ConcurrentHashMap<>();
        private int submitted;

        void submit(TaskPipeline<String> pipeline, Task<String> task) {
            submitted++;
            CompletionStage<Outcome<String>> stage = pipeline.submit(task);
            stage.whenComplete((o, e) -> {
                if (e != null) {
                    failures.put(task.key().id(), e);
                } else {
                    outcomes.put(task.key().id(), o);
                }
            });
        }

        boolean allIn() {
            return outcomes.size() + failures.size() == submitted;
        }

        Class<?> kind(String id) {
            return outcomes.get(id).getClass();
        }
    }

    // ---- outcomes

    /**
     * Records as a busy system has them: completed, completed with another payload or an old format, a live
     * lease of another consumer, a lapsed lease of one that died.
     */
    private static void prepare(IdempotencyStore store, MutableClock clock) {
        claimNow(store, "loop"); // its owner dies: the lease lapses and the next claim takes it over
        clock.advance(PAST_LEASE);
        Lease dup = ((ClaimResult.Acquired) claimNow(store, "dup")).lease();
        store.complete(dup, "stored".getBytes(StandardCharsets.UTF_8), Duration.ofHours(1));
        Lease conflict = ((ClaimResult.Acquired) store.claim(request("conflict", "another payload"))).lease();
        store.complete(conflict, "x".getBytes(StandardCharsets.UTF_8), Duration.ofHours(1));
        Lease old = ((ClaimResult.Acquired) claimNow(store, "undecodable")).lease();
        store.complete(old, "v1:receipt".getBytes(StandardCharsets.UTF_8), Duration.ofHours(1));
        claimNow(store, "busy");
    }

    /** "lost" last: see below. */
    private static final List<String> IDS = List.of("fresh", "dup", "busy", "conflict", "loop", "fails",
            "unencodable", "big", "undecodable", "lost");

    private static List<Task<String>> tasks(IdempotencyStore store, MutableClock clock, List<String> ran) {
        List<Task<String>> tasks = new ArrayList<>();
        for (String id : IDS) {
            tasks.add(task(id, ctx -> {
                ran.add(id);
                switch (id) {
                    case "fails" -> throw new IllegalStateException("handler failed");
                    case "big" -> {
                        return "b".repeat(2000);
                    }
                    case "lost" -> {
                        // Stalls past its lease, and another consumer takes the key over.
                        clock.advance(PAST_LEASE);
                        assertThat(claimNow(store, "lost")).isInstanceOf(ClaimResult.Acquired.class);
                        return "late";
                    }
                    default -> {
                        return id;
                    }
                }
            }));
        }
        return tasks;
    }

    @Test
    void everyOutcomeIsTheOneExecuteAnswersForTheSameTaskAndRecords() throws Exception {
        // The same records twice: one store for execute, one for the pipeline.
        MutableClock executeClock = new MutableClock();
        InMemoryIdempotencyStore executeStore = InMemoryIdempotencyStore.builder().clock(executeClock).build();
        prepare(executeStore, executeClock);
        MutableClock pipeClock = new MutableClock();
        InMemoryIdempotencyStore pipeStore = InMemoryIdempotencyStore.builder().clock(pipeClock).build();
        prepare(pipeStore, pipeClock);

        Map<String, Class<?>> executed = new LinkedHashMap<>();
        List<String> ranByExecute = new CopyOnWriteArrayList<>();
        Idempotency once = executor(executeStore);
        for (Task<String> t : tasks(executeStore, executeClock, ranByExecute)) {
            executed.put(t.key().id(), once.execute(t).getClass());
        }
        int takeoversByExecute = heard.takeovers.size();

        List<String> ranByPipeline = new CopyOnWriteArrayList<>();
        TaskPipeline<String> pipeline = pipeline(executor(pipeStore), 100);
        Results results = new Results();
        List<Task<String>> tasks = tasks(pipeStore, pipeClock, ranByPipeline);
        // "lost" moves the store's clock past every lease: it comes once the others are recorded, as with execute.
        for (Task<String> t : tasks.subList(0, tasks.size() - 1)) {
            results.submit(pipeline, t);
        }
        drive(pipeline, results::allIn);
        results.submit(pipeline, tasks.get(tasks.size() - 1));
        drive(pipeline, results::allIn);

        assertThat(results.failures).isEmpty();
        Map<String, Class<?>> piped = new LinkedHashMap<>();
        for (String id : IDS) {
            piped.put(id, results.kind(id));
        }
        assertThat(piped).isEqualTo(executed);
        Map<String, Class<?>> expected = new LinkedHashMap<>();
        expected.put("fresh", Outcome.Processed.class);
        expected.put("dup", Outcome.Duplicate.class);
        expected.put("busy", Outcome.Busy.class);
        expected.put("conflict", Outcome.Conflict.class);
        expected.put("loop", Outcome.CrashLoop.class);
        expected.put("fails", Outcome.Failed.class);
        expected.put("unencodable", Outcome.Failed.class);
        expected.put("big", Outcome.Failed.class);
        expected.put("undecodable", Outcome.Failed.class);
        expected.put("lost", Outcome.LeaseLost.class);
        assertThat(piped).containsExactlyEntriesOf(expected);
        assertThat(((Outcome.Duplicate<String>) results.outcomes.get("dup")).result()).isEqualTo("stored");
        assertThat(((Outcome.Failed<String>) results.outcomes.get("big")).cause())
                .isInstanceOf(StoreRejectedException.class).hasMessageContaining("maxResultBytes");
        assertThat(((Outcome.Failed<String>) results.outcomes.get("unencodable")).cause())
                .hasMessageContaining("cannot encode");
        assertThat(((Outcome.Failed<String>) results.outcomes.get("undecodable")).cause())
                .hasMessageContaining("format v1");
        assertThat(ranByPipeline).isEqualTo(ranByExecute)
                .containsExactly("fresh", "fails", "unencodable", "big", "lost");
        // Processed work is recorded; failed handlers, codecs and crash loops gave their keys back at once.
        assertThat(claimNow(pipeStore, "fresh")).isInstanceOf(ClaimResult.Duplicate.class);
        for (String id : List.of("fails", "unencodable", "big", "loop")) {
            assertThat(claimNow(pipeStore, id)).as("claim of %s", id).isInstanceOf(ClaimResult.Acquired.class);
        }
        assertThat(heard.takeovers.size() - takeoversByExecute).isEqualTo(takeoversByExecute).isEqualTo(1);
        assertThat(heard.handlers.size()).isEqualTo(2 * 5);
        assertThat(heard.outcomes).hasSize(2 * IDS.size());
        assertThat(heard.storeCalls).contains("CLAIM_ALL:" + (IDS.size() - 1));
    }

    // ---- stages

    @Test
    void claimsAndCompletionsCarryWhatAccumulatedWhileTheLastCallWasInFlight() throws Exception {
        AnswerLaterStore store = answerLater(InMemoryIdempotencyStore.create());
        store.hold();
        TaskPipeline<String> pipeline = pipeline(executor(store), 100);
        Results results = new Results();
        List<String> ran = new CopyOnWriteArrayList<>();

        results.submit(pipeline, task("t1", ctx -> record(ran, "t1")));
        pipeline.step();
        assertThat(store.claimCalls).containsExactly(1);
        for (String id : List.of("t2", "t3", "t4")) {
            results.submit(pipeline, task(id, ctx -> record(ran, id)));
        }
        pipeline.step();
        assertThat(store.claimCalls).as("one claim call in flight at a time").containsExactly(1);

        store.answerAll();
        drive(pipeline, () -> ran.size() == 1);
        // t1's claim answered: its handler ran, its completion and the next claims went out together.
        assertThat(store.claimCalls).containsExactly(1, 3);
        assertThat(store.completionCalls).containsExactly(1);
        store.answerClaims();
        drive(pipeline, () -> ran.size() == 4);
        // t2..t4 ran while t1's completion was in flight: no completion call went out meanwhile.
        assertThat(store.completionCalls).containsExactly(1);
        store.answerCompletions();
        drive(pipeline, () -> store.completionCalls.size() == 2);
        assertThat(store.completionCalls).as("their completions in one call").containsExactly(1, 3);
        store.answerAll();
        drive(pipeline, results::allIn);

        assertThat(ran).containsExactly("t1", "t2", "t3", "t4");
        for (String id : List.of("t1", "t2", "t3", "t4")) {
            assertThat(results.kind(id)).isEqualTo(Outcome.Processed.class);
            assertThat(store.find(key(id)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        }
        assertThat(pipeline.size()).isZero();
        // Every event but renewals is heard on the driving thread, although the store answers on its own.
        assertThat(heard.threads.keySet()).containsExactly(Thread.currentThread().getName());
        assertThat(heard.storeCalls).containsExactly("CLAIM_ALL:1", "CLAIM_ALL:3", "COMPLETE_ALL:1",
                "COMPLETE_ALL:3");
    }

    private static String record(List<String> ran, String id) {
        ran.add(id);
        return "r-" + id;
    }

    @Test
    void handlersRunInSubmissionOrderAndAtMostACallsWorthPerStep() throws Exception {
        AnswerLaterStore store = answerLater(InMemoryIdempotencyStore.create());
        TaskPipeline<String> pipeline = pipeline(executor(store), 3);
        Results results = new Results();
        List<String> ran = new CopyOnWriteArrayList<>();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String id = "o" + i;
            ids.add(id);
            results.submit(pipeline, task(id, ctx -> record(ran, id)));
        }
        AtomicInteger mostPerStep = new AtomicInteger();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!results.allIn()) {
            int before = ran.size();
            boolean progress = pipeline.step();
            mostPerStep.accumulateAndGet(ran.size() - before, Math::max);
            if (!progress) {
                assertThat(wakes.tryAcquire(deadline - System.nanoTime(), TimeUnit.NANOSECONDS)).isTrue();
            }
        }

        assertThat(ran).containsExactlyElementsOf(ids);
        assertThat(mostPerStep.get()).isBetween(1, 3);
        assertThat(store.claimCalls).allMatch(n -> n <= 3);
        assertThat(store.completionCalls).allMatch(n -> n <= 3);
        assertThat(results.outcomes.values()).allMatch(o -> o instanceof Outcome.Processed);
    }

    @Test
    void aStoreAnsweringOnTheCallersThreadGetsTheCompletionsOfTheHandlersReadyInOneCall() throws Exception {
        InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
        TaskPipeline<String> pipeline = pipeline(executor(store), 100);
        Results results = new Results();
        for (String id : List.of("s1", "s2", "s3", "s4")) {
            results.submit(pipeline, task(id, ctx -> id));
        }
        drive(pipeline, results::allIn);

        // Nothing can overlap a call answered before it returns: after the first, the completions of the handlers
        // claimed together wait for them and go in one call.
        assertThat(heard.storeCalls).containsExactly("CLAIM_ALL:4", "COMPLETE_ALL:1", "COMPLETE_ALL:3");
        assertThat(results.outcomes.values()).allMatch(o -> o instanceof Outcome.Processed);
    }

    // ---- repeated keys

    @Test
    void aRepeatedKeyWaitsForTheEarlierOutcomeAndIsThenADuplicate() throws Exception {
        AnswerLaterStore store = answerLater(InMemoryIdempotencyStore.create());
        store.hold();
        TaskPipeline<String> pipeline = pipeline(executor(store), 100);
        Results first = new Results();
        Results second = new Results();
        AtomicInteger effects = new AtomicInteger();
        first.submit(pipeline, task("a", ctx -> "effect-" + effects.incrementAndGet()));
        first.submit(pipeline, task("b", ctx -> "b"));
        second.submit(pipeline, task("a", ctx -> "effect-" + effects.incrementAndGet()));

        pipeline.step();
        assertThat(store.claimCalls).as("the repeat stays behind").containsExactly(2);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(first.allIn() && second.allIn())) {
            store.answerAll();
            if (!pipeline.step()) {
                wakes.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            assertThat(System.nanoTime()).isLessThan(deadline);
        }

        assertThat(first.kind("a")).isEqualTo(Outcome.Processed.class);
        assertThat(second.kind("a")).isEqualTo(Outcome.Duplicate.class);
        assertThat(((Outcome.Duplicate<String>) second.outcomes.get("a")).result()).isEqualTo("effect-1");
        assertThat(effects).hasValue(1);
        assertThat(store.claimCalls).containsExactly(2, 1);
    }

    @Test
    void aRepeatNextInLineIsClaimedEvenWithACallsWorthClaimedBehindIt() throws Exception {
        InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
        TaskPipeline<String> pipeline = pipeline(executor(store), 2);
        Results first = new Results();
        Results later = new Results();
        first.submit(pipeline, task("a", ctx -> "a"));
        later.submit(pipeline, task("a", ctx -> "again")); // waits for the first a
        first.submit(pipeline, task("b", ctx -> "b"));
        first.submit(pipeline, task("c", ctx -> "c")); // claimed while the repeat waits: b and c fill the window
        drive(pipeline, () -> first.allIn() && later.allIn());

        assertThat(later.kind("a")).isEqualTo(Outcome.Duplicate.class);
        assertThat(first.outcomes.values()).allMatch(o -> o instanceof Outcome.Processed);
        assertThat(heard.handlers).containsExactly(key("a"), key("b"), key("c"));
    }

    @Test
    void aRepeatAfterAFailedRunClaimsTheReleasedKeyAndRuns() throws Exception {
        InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
        TaskPipeline<String> pipeline = pipeline(executor(store), 100);
        Results first = new Results();
        Results second = new Results();
        AtomicInteger attempts = new AtomicInteger();
        Handler<String> flaky = ctx -> {
            if (attempts.incrementAndGet() == 1) {
                throw new IllegalStateException("first attempt fails");
            }
            return "ok";
        };
        first.submit(pipeline, task("a", flaky));
        second.submit(pipeline, task("a", flaky));
        drive(pipeline, () -> first.allIn() && second.allIn());

        assertThat(first.kind("a")).isEqualTo(Outcome.Failed.class);
        assertThat(second.kind("a")).isEqualTo(Outcome.Processed.class);
        assertThat(attempts).hasValue(2);
        assertThat(claimNow(store, "a")).isInstanceOf(ClaimResult.Duplicate.class);
    }

    // ---- the store going away

    @Test
    void aClaimCallTheStoreCannotAnswerFailsItsTasksAndRunsNoHandler() throws Exception {
        AnswerLaterStore store = answerLater(InMemoryIdempotencyStore.create());
        store.cut();
        TaskPipeline<String> pipeline = pipeline(executor(store), 100);
        Results results = new Results();
        AtomicInteger ran = new AtomicInteger();
        results.submit(pipeline, task("x", ctx -> "x" + ran.incrementAndGet()));
        results.submit(pipeline, task("y", ctx -> "y" + ran.incrementAndGet()));
        drive(pipeline, results::allIn);

        assertThat(results.failures).containsOnlyKeys("x", "y");
        assertThat(results.failures.values()).allMatch(e -> e instanceof StoreUnavailableException);
        assertThat(ran).hasValue(0);
        assertThat(heard.storeCalls).containsExactly("CLAIM_ALL:2:failed");
        assertThat(pipeline.size()).isZero();
    }

    @Test
    void aCompletionTheStoreCannotRecordFailsItsTaskAndGivesTheKeyBack() throws Exception {
        AnswerLaterStore store = answerLater(InMemoryIdempotencyStore.create());
        TaskPipeline<String> pipeline = pipeline(executor(store), 100);
        Results results = new Results();
        store.hold();
        results.submit(pipeline, task("c", ctx -> "c"));
        drive(pipeline, () -> store.waiting() == 1);
        store.answerAll();
        drive(pipeline, () -> store.completionCalls.size() == 1);
        store.cut();
        store.answerAll();
        drive(pipeline, results::allIn);

        assertThat(results.failures.get("c")).isInstanceOf(StoreUnavailableException.class);
        store.restore();
        // The release failed with the store; the lease is left to lapse (no completed record, never a duplicate).
        assertThat(store.find(key("c")).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(heard.storeCalls).contains("COMPLETE_ALL:1:failed", "RELEASE:1:failed");
    }

    @Test
    void abandonEndsTheTasksNotStartedAndGivesBackTheKeysClaimedForThem() throws Exception {
        AnswerLaterStore store = answerLater(InMemoryIdempotencyStore.create());
        store.hold();
        TaskPipeline<String> pipeline = pipeline(executor(store), 3);
        Results first = new Results();
        Results repeat = new Results();
        List<String> ran = new CopyOnWriteArrayList<>();
        first.submit(pipeline, task("a", ctx -> record(ran, "a")));
        repeat.submit(pipeline, task("a", ctx -> record(ran, "a again"))); // waits for the first a
        for (String id : List.of("b", "c", "d", "e")) {
            first.submit(pipeline, task(id, ctx -> record(ran, id)));
        }
        pipeline.step(); // claims a, b, c
        store.answerAll();
        // a ran, its completion in flight; d's claim in flight; b and c claimed, held up behind the repeat of a.
        drive(pipeline, () -> ran.size() == 1 && store.waiting() == 2);
        assertThat(store.claimCalls).containsExactly(3, 1);

        RuntimeException stopping = new IllegalStateException("stopping");
        pipeline.abandon(stopping);
        assertThat(first.failures).containsOnlyKeys("b", "c", "e"); // claimed and not started; not yet claimed
        assertThat(repeat.failures).containsOnlyKeys("a");
        store.answerAll();
        drive(pipeline, () -> first.allIn() && repeat.allIn());

        assertThat(ran).containsExactly("a");
        assertThat(first.kind("a")).as("a handler that ran keeps going").isEqualTo(Outcome.Processed.class);
        assertThat(first.failures).containsOnlyKeys("b", "c", "d", "e");
        assertThat(first.failures.values()).allMatch(e -> e == stopping);
        // Claimed keys were released, not left to lapse: another consumer claims them at once.
        for (String id : List.of("b", "c", "d", "e")) {
            assertThat(claimNow(store, id)).as("claim of %s", id).isInstanceOf(ClaimResult.Acquired.class);
        }
        assertThat(pipeline.size()).isZero();
    }

    @Test
    void anErrorFromAHandlerGivesBackEveryKeyHeldAndEscapes() throws Exception {
        InMemoryIdempotencyStore inner = InMemoryIdempotencyStore.create();
        AnswerLaterStore store = answerLater(inner);
        store.hold();
        TaskPipeline<String> pipeline = pipeline(executor(store), 100);
        Error fatal = new Error("out of memory, say");
        Results results = new Results();
        results.submit(pipeline, task("e1", ctx -> "e1"));
        results.submit(pipeline, task("e2", ctx -> {
            throw fatal;
        }));
        results.submit(pipeline, task("e3", ctx -> "e3"));
        pipeline.step();
        store.answerAll();

        assertThatThrownBy(() -> drive(pipeline, () -> false)).isSameAs(fatal);
        assertThat(store.completionCalls).as("e1 ran first, its completion in flight").containsExactly(1);
        for (String id : List.of("e2", "e3")) {
            assertThat(claimNow(inner, id)).as("claim of %s", id).isInstanceOf(ClaimResult.Acquired.class);
        }
    }
}
