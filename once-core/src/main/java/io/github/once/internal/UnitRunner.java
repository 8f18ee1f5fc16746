package io.github.once.internal;

import io.github.once.IdempotencyKey;
import io.github.once.OnceException;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.Task;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The executor's algorithm, once for every scope: over one unit of work it claims the tasks' keys, answers the
 * keys it could not claim, runs the handlers of the keys it did, records their completions and commits. Keys
 * repeated in a batch are claimed at their turn, after the completions so far are recorded, so a repeat of a
 * processed task is a {@code Duplicate}.
 *
 * <p>A handler or codec that throws is a {@code Failed} outcome: where the unit can isolate it (always in the
 * default scope; under a savepoint in a transaction) its effect is undone and its key released; otherwise the unit
 * rolls back and the run reports which task failed, for the caller to run the others again. A stored result that
 * cannot be decoded is a {@code Failed} outcome of that task alone. Anything else that escapes (an
 * {@link Error}, an unreachable store, a lost unit) first gives back every lease still held: renewals stop, and
 * the keys are released (or rolled back with the unit), so none of them stays busy. What each answer means is
 * {@link TaskSteps}'.
 */
public final class UnitRunner {

    private final TaskSteps steps;
    private final StoreCalls calls;

    public UnitRunner(TaskSteps steps) {
        this.steps = steps;
        this.calls = steps.calls();
    }

    /**
     * Runs {@code tasks} in {@code unit} and commits it. The tasks in {@code failed} are claimed and released, not
     * run, and keep their outcome; in an atomic unit the tasks from {@code isolateFrom} on run under a mark each.
     */
    public <T> Result<T> run(ExecutionScope.Unit unit, List<Task<T>> tasks, Map<Integer, Outcome<T>> failed,
                             int isolateFrom) {
        return new Run<>(unit, tasks, failed, isolateFrom).run();
    }

    /** Every task's outcome once the unit committed, or the task whose failure rolled the unit back. */
    public record Result<T>(List<Outcome<T>> outcomes, int failedAt, Outcome<T> failure) {
        static <T> Result<T> committed(List<Outcome<T>> outcomes) {
            return new Result<>(outcomes, -1, null);
        }

        static <T> Result<T> rolledBack(int index, Outcome<T> failure) {
            return new Result<>(null, index, failure);
        }

        public boolean isCommitted() {
            return outcomes != null;
        }
    }

    /** A task whose handler succeeded, at its place in the unit, its lease held until its completion is recorded. */
    private record Slot<T>(int index, TaskSteps.Held<T> held) {
    }

    private final class Run<T> {
        private final ExecutionScope.Unit unit;
        private final List<Task<T>> tasks;
        private final Map<Integer, Outcome<T>> failed;
        private final int isolateFrom;
        private final List<Outcome<T>> outcomes;
        private final List<Slot<T>> held = new ArrayList<>();
        /** Leases claimed whose handlers have not started yet, by task index; kept (renewed) while they wait. */
        private final TaskSteps.Held<T>[] waiting;
        private boolean claimedAny;

        Run(ExecutionScope.Unit unit, List<Task<T>> tasks, Map<Integer, Outcome<T>> failed, int isolateFrom) {
            this.unit = unit;
            this.tasks = tasks;
            this.failed = failed;
            this.isolateFrom = isolateFrom;
            this.outcomes = Arrays.asList(newOutcomes(tasks.size()));
            this.waiting = newHelds(tasks.size());
        }

        @SuppressWarnings("unchecked")
        private TaskSteps.Held<T>[] newHelds(int size) {
            return new TaskSteps.Held[size];
        }

        @SuppressWarnings("unchecked")
        private Outcome<T>[] newOutcomes(int size) {
            return new Outcome[size];
        }

        Result<T> run() {
            try {
                return steps();
            } catch (Throwable t) {
                giveBack(t);
                throw t;
            }
        }

        private Result<T> steps() {
            List<ClaimRequest> requests = new ArrayList<>(tasks.size());
            List<ClaimRequest> firsts = new ArrayList<>(tasks.size());
            boolean[] repeat = new boolean[tasks.size()];
            Set<IdempotencyKey> seen = new HashSet<>();
            for (int i = 0; i < tasks.size(); i++) {
                ClaimRequest request = steps.request(tasks.get(i));
                requests.add(request);
                repeat[i] = !seen.add(request.key());
                if (!repeat[i]) {
                    firsts.add(request);
                }
            }
            List<ClaimResult> claims = calls.observed(OnceListener.StoreOperation.CLAIM, firsts.get(0).key().namespace(),
                    firsts.size(), () -> unit.claim(firsts));
            if (claims.size() != firsts.size()) {
                throw new OnceException("store answered " + claims.size() + " claims for " + firsts.size() + " requests");
            }
            ClaimResult[] claimed = new ClaimResult[tasks.size()];
            int next = 0;
            for (int i = 0; i < tasks.size(); i++) {
                if (!repeat[i]) {
                    claimed[i] = claims.get(next++);
                    // Every lease is kept from its claim on, not from its handler's start: a batch's later keys
                    // wait for the handlers before them, and must not lapse while they wait.
                    if (claimed[i] instanceof ClaimResult.Acquired acquired) {
                        waiting[i] = steps.hold(tasks.get(i), acquired.lease(), unit.renewsLeases());
                    }
                }
            }
            for (int i = 0; i < tasks.size(); i++) {
                Task<T> task = tasks.get(i);
                ClaimResult claim;
                if (repeat[i]) {
                    // A repeated key must see the earlier one's record: write what is held first.
                    complete();
                    ClaimRequest request = requests.get(i);
                    claim = calls.claimOne(unit, request);
                    if (claim instanceof ClaimResult.Acquired acquired) {
                        waiting[i] = steps.hold(task, acquired.lease(), unit.renewsLeases());
                    }
                } else {
                    claim = claimed[i];
                }
                Outcome<T> failure = failed.get(i);
                if (!(claim instanceof ClaimResult.Acquired acquired)) {
                    outcomes.set(i, failure != null ? failure
                            : TaskSteps.answer(task, claim, requests.get(i).fingerprint()));
                    continue;
                }
                claimedAny = true;
                TaskSteps.Held<T> mine = waiting[i];
                waiting[i] = null;
                if (failure != null) {
                    // Failed in an earlier run of this batch: give the key back so a redelivery can retry at once.
                    mine.keeper().stop();
                    steps.release(unit, mine.keeper().current());
                    outcomes.set(i, failure);
                    continue;
                }
                Outcome<T> crashLoop = steps.acquired(task, acquired);
                if (crashLoop != null) {
                    mine.keeper().stop();
                    steps.release(unit, mine.keeper().current());
                    outcomes.set(i, crashLoop);
                    continue;
                }
                boolean isolated = !unit.atomic() || i >= isolateFrom;
                Outcome<T> failedNow = runHandler(i, mine, isolated);
                if (failedNow != null && !isolated) {
                    unit.rollback();
                    stopRenewals();
                    return Result.rolledBack(i, failedNow);
                }
                if (failedNow != null) {
                    outcomes.set(i, failedNow);
                }
            }
            complete();
            if (!claimedAny) {
                unit.rollback(); // nothing to keep
                return Result.committed(outcomes);
            }
            unit.commit();
            return Result.committed(outcomes);
        }

        /** Runs one handler; null when it succeeded (its completion is then held), else its {@code Failed}. */
        private Outcome<T> runHandler(int index, TaskSteps.Held<T> mine, boolean isolated) {
            ExecutionScope.Mark mark = isolated ? unit.mark() : null;
            held.add(new Slot<>(index, mine)); // from here on, anything escaping gives this lease back too
            Outcome<T> failure = steps.run(mine, unit);
            if (failure != null) {
                held.remove(held.size() - 1);
                if (isolated) {
                    mark.undo();
                    steps.release(unit, mine.keeper().current());
                }
                return failure;
            }
            if (mark != null) {
                mark.keep();
            }
            return null;
        }

        /** Records the completions held so far, with one store call. */
        private void complete() {
            if (held.isEmpty()) {
                return;
            }
            List<Completion> completions = new ArrayList<>(held.size());
            for (Slot<T> h : held) {
                completions.add(steps.completion(h.held()));
            }
            List<Boolean> recorded = calls.observed(OnceListener.StoreOperation.COMPLETE,
                    completions.get(0).lease().key().namespace(), completions.size(), () -> unit.complete(completions));
            if (recorded.size() != completions.size()) {
                throw new OnceException("store answered " + recorded.size() + " completions for " + completions.size());
            }
            for (int j = 0; j < held.size(); j++) {
                Slot<T> h = held.get(j);
                outcomes.set(h.index(), steps.completed(h.held(), recorded.get(j)));
            }
            held.clear();
        }

        private void stopRenewals() {
            for (Slot<T> h : held) {
                h.held().keeper().stop();
            }
            held.clear();
            for (int i = 0; i < waiting.length; i++) {
                if (waiting[i] != null) {
                    waiting[i].keeper().stop();
                }
            }
        }

        /** Something escaped: no lease of this run may stay held (renewed, or busy until the process dies). */
        private void giveBack(Throwable cause) {
            List<TaskSteps.Held<T>> leases = new ArrayList<>();
            for (Slot<T> h : held) {
                leases.add(h.held());
            }
            for (TaskSteps.Held<T> w : waiting) {
                if (w != null) {
                    leases.add(w);
                }
            }
            stopRenewals();
            if (unit.atomic()) {
                try {
                    unit.rollback();
                } catch (RuntimeException e) {
                    cause.addSuppressed(e);
                }
                return;
            }
            for (TaskSteps.Held<T> h : leases) {
                try {
                    steps.release(unit, h.keeper().current());
                } catch (RuntimeException e) {
                    cause.addSuppressed(e);
                }
            }
        }
    }
}
