package io.github.once.internal;

import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.Task;
import io.github.once.TaskPipeline;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ExecutionScope;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiFunction;

/**
 * The pipeline over a scope whose units commit (a database transaction): group commit. The tasks waiting when
 * the driving thread is free form a group, run as a batch in one unit on that thread (claims, handlers,
 * completions: {@link GroupRun}), and the unit's commit goes to another thread while the next group is claimed and
 * run in a unit of its own. A task's outcome comes only once its group's commit has answered, so nothing is acked
 * before its effect and record are committed; a failed commit fails every task of its group (their effects and
 * records rolled back with it).
 *
 * <p>At most one commit is in flight and one group waits behind it, ready, so a pipeline holds at most two units
 * (two connections) and commits its groups in submission order. A task whose key is in a group not yet committed
 * waits, and so do the tasks after it: handlers run in submission order, and a repeat sees the earlier record.
 * A handler in a group runs before the group ahead of it has committed, so it does not see that group's effects
 * unless it waits for them (a row lock, as under concurrent consumers). Not thread-safe: see {@link TaskPipeline}.
 */
public final class GroupCommitPipeline<T> implements TaskPipeline<T> {

    /** A group's outcomes as its unit left them, and that unit when its commit is still to come. */
    public record GroupRun<T>(List<Outcome<T>> outcomes, ExecutionScope.Unit uncommitted) {
    }

    private static final class Entry<T> {
        final Task<T> task;
        final ClaimRequest request;
        final Instant submitted;
        final CompletableFuture<Outcome<T>> done = new CompletableFuture<>();

        Entry(Task<T> task, ClaimRequest request, Instant submitted) {
            this.task = task;
            this.request = request;
            this.submitted = submitted;
        }
    }

    /** A group run, its outcomes holding once {@code unit} (null: nothing to commit) has committed. */
    private record Group<T>(List<Entry<T>> entries, List<Outcome<T>> outcomes, ExecutionScope.Unit unit) {
    }

    /** A commit's answer, queued by the committing thread. */
    private record Answer<T>(Group<T> group, Throwable failure) {
    }

    private final TaskSteps steps;
    private final BiFunction<List<Task<T>>, List<ClaimRequest>, GroupRun<T>> runGroup;
    private final SafeListener listener;
    private final Executor committer;
    private final Clock clock;
    private final int maxPerGroup;
    private final Runnable wake;
    private final List<Entry<T>> waiting = new ArrayList<>();
    /** Keys of the groups run and not yet committed: a task repeating one waits. */
    private final Set<IdempotencyKey> inPlay = new HashSet<>();
    private final Queue<Answer<T>> answers = new ConcurrentLinkedQueue<>();
    /** Stages to complete once the pipeline's own state is consistent, so callbacks may submit or abandon. */
    private final Queue<Runnable> ready = new ArrayDeque<>();
    /** Whether a group's commit is in flight. */
    private boolean committing;
    /** The group run and waiting for the commit in flight to answer, or null. */
    private Group<T> next;
    private int size;

    /**
     * @param steps       the executor's steps, to make each task's claim request as it comes
     * @param runGroup    runs a group's tasks, with their requests, in a unit of the scope up to (not including)
     *                    its commit
     * @param committer   where commits run, off the driving thread
     * @param maxPerGroup most tasks in one group
     * @param wake        called on the committing thread whenever a commit answers
     */
    public GroupCommitPipeline(TaskSteps steps, BiFunction<List<Task<T>>, List<ClaimRequest>, GroupRun<T>> runGroup,
                               Executor committer, Clock clock, int maxPerGroup, Runnable wake) {
        if (maxPerGroup < 1) {
            throw new IllegalArgumentException("maxPerGroup must be at least 1, but was " + maxPerGroup);
        }
        this.steps = steps;
        this.runGroup = runGroup;
        this.listener = steps.calls().listener();
        this.committer = committer;
        this.clock = clock;
        this.maxPerGroup = maxPerGroup;
        this.wake = Objects.requireNonNull(wake, "wake");
    }

    @Override
    public CompletionStage<Outcome<T>> submit(Task<T> task) {
        Objects.requireNonNull(task, "task");
        ClaimRequest request;
        try {
            request = steps.request(task); // a payload that cannot be fingerprinted fails its own task, not its group
        } catch (RuntimeException e) {
            return TaskSteps.refusedAtSubmit(ready, e);
        }
        Entry<T> e = new Entry<>(task, request, clock.instant());
        waiting.add(e);
        size++;
        return e.done;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public boolean step() {
        boolean progress = !ready.isEmpty();
        fire();
        if (takeAnswers()) {
            // Outcomes came in: the caller acks them before the next group runs, so the broker refills what a
            // group takes while it runs (the next group then forms from what arrived meanwhile).
            return true;
        }
        if (next == null) {
            List<Entry<T>> group = takeGroup();
            if (!group.isEmpty()) {
                run(group);
                progress = true;
            }
        }
        fire();
        return progress;
    }

    @Override
    public void abandon(RuntimeException cause) {
        Objects.requireNonNull(cause, "cause");
        for (Entry<T> e : waiting) {
            fail(e, cause);
        }
        waiting.clear();
        fire();
    }

    /** The waiting tasks from the head, up to the first whose key is in a group not yet committed. */
    private List<Entry<T>> takeGroup() {
        List<Entry<T>> group = new ArrayList<>();
        for (Iterator<Entry<T>> it = waiting.iterator(); it.hasNext() && group.size() < maxPerGroup; ) {
            Entry<T> e = it.next();
            if (inPlay.contains(e.task.key())) {
                break;
            }
            it.remove();
            group.add(e);
        }
        return group;
    }

    private void run(List<Entry<T>> entries) {
        List<Task<T>> tasks = new ArrayList<>(entries.size());
        List<ClaimRequest> requests = new ArrayList<>(entries.size());
        for (Entry<T> e : entries) {
            tasks.add(e.task);
            requests.add(e.request);
        }
        GroupRun<T> ran;
        try {
            ran = runGroup.apply(tasks, requests); // an Error escapes to the driving thread, the unit rolled back
        } catch (RuntimeException e) {
            for (Entry<T> entry : entries) {
                fail(entry, e);
            }
            return;
        }
        Group<T> group = new Group<>(entries, ran.outcomes(), ran.uncommitted());
        if (group.unit() == null) {
            finish(group); // committed already (one by one after a lost race), or nothing to commit
            return;
        }
        for (Entry<T> e : entries) {
            inPlay.add(e.task.key());
        }
        if (!committing) {
            commit(group);
        } else {
            next = group;
        }
    }

    private void commit(Group<T> group) {
        committing = true;
        Runnable commit = () -> {
            Throwable failure = null;
            try (ExecutionScope.Unit unit = group.unit()) {
                unit.commit();
            } catch (RuntimeException | Error e) {
                failure = e;
            }
            answers.add(new Answer<>(group, failure));
            wake.run();
        };
        try {
            committer.execute(commit);
        } catch (RejectedExecutionException e) {
            commit.run(); // the executor is closing: commit here rather than leave the unit open
        }
    }

    private boolean takeAnswers() {
        boolean any = false;
        for (Answer<T> a; (a = answers.poll()) != null; ) {
            any = true;
            committing = false;
            for (Entry<T> e : a.group().entries()) {
                inPlay.remove(e.task.key());
            }
            if (a.failure() == null) {
                finish(a.group());
            } else {
                RuntimeException cause = TaskSteps.runtime(a.failure());
                for (Entry<T> e : a.group().entries()) {
                    fail(e, cause);
                }
            }
            if (next != null) {
                Group<T> behind = next;
                next = null;
                commit(behind);
            }
            fire();
        }
        return any;
    }

    private void finish(Group<T> group) {
        Instant now = clock.instant();
        for (int i = 0; i < group.entries().size(); i++) {
            Entry<T> e = group.entries().get(i);
            Outcome<T> outcome = group.outcomes().get(i);
            size--;
            listener.onOutcome(outcome, Duration.between(e.submitted, now));
            ready.add(() -> e.done.complete(outcome));
        }
    }

    private void fail(Entry<T> e, RuntimeException cause) {
        size--;
        ready.add(() -> e.done.completeExceptionally(cause));
    }

    private void fire() {
        for (Runnable r; (r = ready.poll()) != null; ) {
            r.run();
        }
    }
}
