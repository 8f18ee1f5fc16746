package io.github.once.internal;

import io.github.once.IdempotencyKey;
import io.github.once.OnceException;
import io.github.once.Outcome;
import io.github.once.StoreOperation;
import io.github.once.StoreRejectedException;
import io.github.once.Task;
import io.github.once.TaskPipeline;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pipeline over the default scope: each task moves through waiting, claiming, acquired, finished, completing
 * and done, with at most one claim call and one completion call in flight, each carrying whatever accumulated
 * while the previous one was out. What every answer means is {@link TaskSteps}', as in the unit runner; this
 * class decides only when steps run. Not thread-safe: see {@link TaskPipeline}.
 */
public final class StagedPipeline<T> implements TaskPipeline<T> {

    private static final Logger log = LoggerFactory.getLogger(StagedPipeline.class);

    private enum Stage { WAITING, CLAIMING, ACQUIRED, FINISHED, COMPLETING, DONE }

    private static final class Entry<T> {
        final long seq;
        final Task<T> task;
        final ClaimRequest request;
        final Instant submitted;
        final CompletableFuture<Outcome<T>> done = new CompletableFuture<>();
        Stage stage = Stage.WAITING;
        TaskSteps.Held<T> held;
        /** Set when abandoned while its claim was in flight: a key it acquires goes straight back. */
        RuntimeException abandoned;
        /** Sent in a call of its own: a call of several that it was in was refused without naming the key. */
        boolean alone;

        Entry(long seq, Task<T> task, ClaimRequest request, Instant submitted) {
            this.seq = seq;
            this.task = task;
            this.request = request;
            this.submitted = submitted;
        }
    }

    private static final Comparator<Entry<?>> BY_SEQ = Comparator.comparingLong(e -> e.seq);

    /** A store call's answer, queued by whichever thread it came on. */
    private record Answer<T>(boolean claims, List<Entry<T>> group, List<?> results, Throwable failure, long nanos) {
    }

    private final TaskSteps steps;
    private final StoreCalls calls;
    private final IdempotencyStore store;
    private final ExecutionScope.Unit unit;
    private final Clock clock;
    private final int maxPerCall;
    private final Runnable wake;
    private final Queue<Answer<T>> answers = new ConcurrentLinkedQueue<>();
    /** Not yet claimed, in submission order. */
    private final List<Entry<T>> waiting = new ArrayList<>();
    /** Handlers not yet started, in submission order (entries done meanwhile are dropped when they reach the head). */
    private final ArrayDeque<Entry<T>> toRun = new ArrayDeque<>();
    /** Handlers that succeeded, their completion not yet sent. */
    private final List<Entry<T>> finished = new ArrayList<>();
    /** Keys sent for claim whose task has no outcome yet: a repeat of one waits. */
    private final Set<IdempotencyKey> inPlay = new HashSet<>();
    /** Stages to complete once the pipeline's own state is consistent, so callbacks may submit or abandon. */
    private final Queue<Runnable> ready = new ArrayDeque<>();
    private boolean claiming;
    private boolean completing;
    /** Entries claiming or claimed whose handler has not started: at most {@link #maxPerCall}. */
    private int claimedAhead;
    /** Whether the last claim call was answered before it returned: then nothing can overlap it. */
    private boolean claimsInline;
    /** Whether the last completion call was answered before it returned: then nothing can overlap it. */
    private boolean completionsInline;
    /** Set while a call's answer is being awaited on the driving thread, to tell an inline answer. */
    private volatile boolean sending;
    private long nextSeq;
    private int size;
    /** Stages completed so far. */
    private long fired;

    /**
     * @param unit       the default scope's unit: the handlers' context, their steps, and releases
     * @param maxPerCall most tasks in one claim or completion call
     * @param wake       called on the store's thread whenever an answer is queued
     */
    public StagedPipeline(TaskSteps steps, IdempotencyStore store, ExecutionScope.Unit unit, Clock clock,
                          int maxPerCall, Runnable wake) {
        if (maxPerCall < 1) {
            throw new IllegalArgumentException("maxPerCall must be at least 1, but was " + maxPerCall);
        }
        this.steps = steps;
        this.calls = steps.calls();
        this.store = store;
        this.unit = unit;
        this.clock = clock;
        this.maxPerCall = maxPerCall;
        this.wake = Objects.requireNonNull(wake, "wake");
    }

    @Override
    public CompletionStage<Outcome<T>> submit(Task<T> task) {
        Objects.requireNonNull(task, "task");
        ClaimRequest request;
        try {
            request = steps.request(task); // the payload's fingerprint
        } catch (RuntimeException e) {
            return TaskSteps.refusedAtSubmit(ready, e);
        }
        Entry<T> e = new Entry<>(nextSeq++, task, request, clock.instant());
        waiting.add(e);
        toRun.add(e);
        size++;
        return e.done; // not a relay: a relay would wrap the failure in a CompletionException
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean step() {
        boolean progress = !ready.isEmpty();
        fire();
        progress |= exchange(true);
        // The handlers ready in line run one after another, the store's answers taken and the next calls sent
        // after each, until a call's worth ran or an outcome came in: the caller then settles it before more run.
        long outcomes = fired;
        for (int ran = 0; ran < maxPerCall && runNext(); ran++) {
            progress = true;
            exchange(!claimsInline);
            if (fired != outcomes) {
                break;
            }
        }
        return progress;
    }

    /**
     * Takes answers in and sends what can go, until nothing changes (a synchronous store answers at once). A store
     * that answers claims on the caller's thread is sent them only at a step's start, after the caller settled
     * what came in: claimed then, a lease does not wait while the caller acks.
     */
    private boolean exchange(boolean mayClaim) {
        boolean any = false;
        while (takeAnswers() | (mayClaim && sendClaims()) | sendCompletions()) {
            any = true;
        }
        return any;
    }

    @Override
    public void abandon(RuntimeException cause) {
        Objects.requireNonNull(cause, "cause");
        GiveBack giveBack = new GiveBack();
        for (Entry<T> e : waiting) {
            fail(e, cause);
        }
        waiting.clear();
        for (Entry<T> e : toRun) {
            if (e.stage == Stage.ACQUIRED) {
                e.held.keeper().stop();
                giveBack.release(e.held.keeper().current());
                fail(e, cause);
            } else if (e.stage == Stage.CLAIMING) {
                e.abandoned = cause;
            }
        }
        toRun.removeIf(e -> e.stage == Stage.DONE);
        fire();
    }

    // ---- claims

    private boolean sendClaims() {
        if (claiming || waiting.isEmpty()) {
            return false;
        }
        // At most one call's worth is claimed ahead of the handlers: a lease then waits for its handler about as
        // long as in a batch, however many deliveries are in hand (a slow channel with a large prefetch would
        // otherwise hold every lease in hand, and renew them all, for the whole time it takes). The next handler
        // in line is always claimed, though: the ones claimed behind it cannot run before it.
        int room = maxPerCall - claimedAhead;
        if (room <= 0 && !nextInLineWaits()) {
            return false;
        }
        if (claimsInline && nextRunnable() != null) {
            // The store answers on the caller's thread: a claim call now would only hold up the handlers ready to
            // run (and their leases); the deliveries that come meanwhile go together once those have run.
            return false;
        }
        List<Entry<T>> group = takeGroup(waiting, true, Math.max(room, 1));
        if (group.isEmpty()) {
            return false; // every waiting key repeats one still in play
        }
        List<ClaimRequest> requests = new ArrayList<>(group.size());
        for (Entry<T> e : group) {
            move(e, Stage.CLAIMING);
            inPlay.add(e.task.key());
            requests.add(e.request);
        }
        claiming = true;
        claimsInline = send(true, group, () -> store.claimAllAsync(requests));
        return true;
    }

    private void claimed(Answer<T> a) {
        calls.listener().onStoreCall(StoreOperation.CLAIM_ALL, a.group().size(), Duration.ofNanos(a.nanos()),
                a.failure());
        Throwable failure = a.failure() != null ? a.failure() : malformed(a, "claims");
        if (failure != null) {
            claimFailed(a.group(), failure);
            return;
        }
        GiveBack giveBack = new GiveBack();
        for (int i = 0; i < a.group().size(); i++) {
            Entry<T> e = a.group().get(i);
            ClaimResult claim = (ClaimResult) a.results().get(i);
            try {
                claimed(e, claim, giveBack);
            } catch (RuntimeException broken) {
                // Say, renewals refused by a closed executor: this task fails, the others of the call go on.
                if (e.stage != Stage.DONE) {
                    if (claim instanceof ClaimResult.Acquired acquired) {
                        giveBack.release(acquired.lease());
                    }
                    fail(e, broken);
                }
            }
        }
    }

    private void claimed(Entry<T> e, ClaimResult claim, GiveBack giveBack) {
        if (!(claim instanceof ClaimResult.Acquired acquired)) {
            finish(e, TaskSteps.answer(e.task, claim));
            return;
        }
        if (e.abandoned != null) {
            giveBack.release(acquired.lease());
            fail(e, e.abandoned);
            return;
        }
        Outcome<T> crashLoop = steps.acquired(e.task, acquired);
        if (crashLoop != null) {
            giveBack.release(acquired.lease());
            finish(e, crashLoop);
            return;
        }
        // Renewed from now on, not from the handler's start: it may wait behind the handlers before it (at most a
        // call's worth of them, so the renewals stay as many as a batch's).
        e.held = steps.hold(e.task, acquired.lease(), true);
        move(e, Stage.ACQUIRED);
    }

    private void claimFailed(List<Entry<T>> group, Throwable failure) {
        if (failure instanceof StoreRejectedException && group.size() > 1) {
            log.warn("The store refused a claim call of {} keys without saying for which; claiming them one by one",
                    group.size(), failure);
            requeue(group, waiting, Stage.WAITING);
            return;
        }
        for (Entry<T> e : group) {
            if (failure instanceof StoreRejectedException) {
                finish(e, new Outcome.Failed<>(e.task.key(), failure)); // that one record is refused, every time
            } else {
                fail(e, TaskSteps.runtime(failure));
            }
        }
    }

    // ---- handlers

    /** Whether the entry whose handler runs next is not claimed yet. */
    private boolean nextInLineWaits() {
        Entry<T> head;
        while ((head = toRun.peek()) != null && head.stage == Stage.DONE) {
            toRun.poll();
        }
        return head != null && head.stage == Stage.WAITING;
    }

    /** The entry whose handler runs next, if its claim acquired the key; null while there is none. */
    private Entry<T> nextRunnable() {
        Entry<T> head;
        while ((head = toRun.peek()) != null && head.stage == Stage.DONE) {
            toRun.poll();
        }
        return head != null && head.stage == Stage.ACQUIRED ? head : null;
    }

    /** Runs the handler at the head of the submission order, if its claim acquired the key. */
    private boolean runNext() {
        Entry<T> head = nextRunnable();
        if (head == null) {
            return false;
        }
        toRun.poll();
        Outcome<T> failure;
        try {
            failure = steps.run(head.held, unit);
        } catch (Error e) {
            giveBackAll(head);
            throw e;
        }
        if (failure != null) {
            new GiveBack().release(head.held.keeper().current());
            finish(head, failure);
        } else {
            move(head, Stage.FINISHED);
            finished.add(head);
        }
        fire();
        return true;
    }

    /** An Error escaped a handler: like the unit runner, no lease of this pipeline stays renewed or busy. */
    private void giveBackAll(Entry<T> running) {
        GiveBack giveBack = new GiveBack();
        running.held.keeper().stop();
        giveBack.release(running.held.keeper().current());
        for (Entry<T> e : toRun) {
            if (e.stage == Stage.ACQUIRED) {
                e.held.keeper().stop();
                giveBack.release(e.held.keeper().current());
            }
        }
        for (Entry<T> e : finished) {
            e.held.keeper().stop();
            giveBack.release(e.held.keeper().current());
        }
    }

    // ---- completions

    private boolean sendCompletions() {
        if (completing || finished.isEmpty()) {
            return false;
        }
        if (completionsInline && finished.size() < maxPerCall && nextRunnable() != null) {
            // The store answers on the caller's thread, so a call overlaps nothing: save round trips instead, and
            // record the handlers ready to run together with these once they have run (a full call goes at once).
            return false;
        }
        List<Entry<T>> group = takeGroup(finished, false, maxPerCall);
        List<Completion> completions = new ArrayList<>(group.size());
        for (Entry<T> e : group) {
            move(e, Stage.COMPLETING);
            completions.add(steps.completion(e.held));
        }
        completing = true;
        completionsInline = send(false, group, () -> store.completeAllAsync(completions));
        return true;
    }

    private void completed(Answer<T> a) {
        calls.listener().onStoreCall(StoreOperation.COMPLETE_ALL, a.group().size(), Duration.ofNanos(a.nanos()),
                a.failure());
        Throwable failure = a.failure() != null ? a.failure() : malformed(a, "completions");
        if (failure != null) {
            completionFailed(a.group(), failure);
            return;
        }
        for (int i = 0; i < a.group().size(); i++) {
            Entry<T> e = a.group().get(i);
            finish(e, steps.completed(e.held, (Boolean) a.results().get(i)));
        }
    }

    private void completionFailed(List<Entry<T>> group, Throwable failure) {
        if (failure instanceof StoreRejectedException && group.size() > 1) {
            log.warn("The store refused a completion call of {} keys without saying for which; recording them one"
                    + " by one", group.size(), failure);
            requeue(group, finished, Stage.FINISHED);
            return;
        }
        // The handlers ran but are not recorded: give the keys back so that redeliveries can run them again.
        GiveBack giveBack = new GiveBack();
        for (Entry<T> e : group) {
            giveBack.release(e.held.keeper().current());
            if (failure instanceof StoreRejectedException) {
                finish(e, new Outcome.Failed<>(e.task.key(), failure));
            } else {
                fail(e, TaskSteps.runtime(failure));
            }
        }
    }

    // ---- calls and answers

    /**
     * The next call's tasks from {@code from}, in order, at most {@code most}; an entry marked alone goes
     * in a call of its own. For claims, a key repeating an earlier waiting one or one in play stays behind.
     */
    private List<Entry<T>> takeGroup(List<Entry<T>> from, boolean claims, int most) {
        List<Entry<T>> group = new ArrayList<>();
        Set<IdempotencyKey> seen = new HashSet<>();
        for (Iterator<Entry<T>> it = from.iterator(); it.hasNext() && group.size() < most; ) {
            Entry<T> e = it.next();
            IdempotencyKey key = e.task.key();
            if (claims && (!seen.add(key) || inPlay.contains(key))) {
                continue;
            }
            if (e.alone && !group.isEmpty()) {
                break;
            }
            it.remove();
            group.add(e);
            if (e.alone) {
                break;
            }
        }
        return group;
    }

    /** Puts a refused call's tasks back at their places, each to go in a call of its own. */
    private void requeue(List<Entry<T>> group, List<Entry<T>> into, Stage stage) {
        for (Entry<T> e : group) {
            if (e.abandoned != null) {
                inPlay.remove(e.task.key());
                fail(e, e.abandoned);
                continue;
            }
            if (stage == Stage.WAITING) {
                inPlay.remove(e.task.key());
            }
            move(e, stage);
            e.alone = true;
            into.add(e);
        }
        into.sort(BY_SEQ);
    }

    /** Sends a call; true when the store answered it before returning (a store without asynchronous calls). */
    private <R> boolean send(boolean claims, List<Entry<T>> group, Supplier<CompletionStage<List<R>>> call) {
        long started = System.nanoTime();
        Thread driver = Thread.currentThread();
        boolean[] inline = new boolean[1];
        CompletionStage<List<R>> stage;
        try {
            stage = call.get();
            if (stage == null) {
                stage = CompletableFuture.failedFuture(new OnceException("the store answered no stage"));
            }
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        sending = true;
        try {
            stage.whenComplete((results, failure) -> {
                inline[0] = sending && Thread.currentThread() == driver;
                answers.add(new Answer<>(claims, group, results, Futures.unwrapped(failure), System.nanoTime() - started));
                wake.run();
            });
        } finally {
            sending = false;
        }
        return inline[0];
    }

    private boolean takeAnswers() {
        boolean any = false;
        for (Answer<T> a; (a = answers.poll()) != null; ) {
            any = true;
            if (a.claims()) {
                claiming = false;
                claimed(a);
            } else {
                completing = false;
                completed(a);
            }
            fire();
        }
        return any;
    }

    private static OnceException malformed(Answer<?> a, String what) {
        if (a.results() == null || a.results().size() != a.group().size() || a.results().contains(null)) {
            return new OnceException("store answered " + (a.results() == null ? "nothing" : a.results().size()
                    + " " + what + (a.results().contains(null) ? " with a null" : "")) + " for " + a.group().size());
        }
        return null;
    }

    // ---- outcomes

    private void finish(Entry<T> e, Outcome<T> outcome) {
        end(e);
        calls.listener().onOutcome(outcome, Duration.between(e.submitted, clock.instant()));
        ready.add(() -> e.done.complete(outcome));
    }

    private void fail(Entry<T> e, RuntimeException cause) {
        end(e);
        if (e.held != null) {
            e.held.keeper().stop();
        }
        ready.add(() -> e.done.completeExceptionally(cause));
    }

    /** Moves an entry on, keeping count of the entries claimed ahead of their handler. */
    private void move(Entry<T> e, Stage to) {
        boolean wasAhead = e.stage == Stage.CLAIMING || e.stage == Stage.ACQUIRED;
        boolean isAhead = to == Stage.CLAIMING || to == Stage.ACQUIRED;
        claimedAhead += (isAhead ? 1 : 0) - (wasAhead ? 1 : 0);
        e.stage = to;
    }

    private void end(Entry<T> e) {
        if (e.stage != Stage.WAITING) {
            inPlay.remove(e.task.key()); // a waiting repeat never put its key in play: the earlier one did
        }
        move(e, Stage.DONE);
        size--;
    }

    private void fire() {
        for (Runnable r; (r = ready.poll()) != null; ) {
            fired++;
            r.run();
        }
    }

    /**
     * Gives keys back. Once the store could not be reached, the rest lapse with their leases instead: each
     * further attempt would only wait out the store's timeout.
     */
    private final class GiveBack {
        private boolean unreachable;

        void release(Lease lease) {
            if (unreachable) {
                log.debug("Not releasing {}: the store is unreachable; it frees itself when its lease ends", lease.key());
                return;
            }
            try {
                unreachable = !steps.release(unit, lease);
            } catch (RuntimeException e) {
                log.warn("Could not release {}; it frees itself when its lease ends", lease.key(), e);
            }
        }
    }
}
