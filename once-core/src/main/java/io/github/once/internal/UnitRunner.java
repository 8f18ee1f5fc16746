package io.github.once.internal;

import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.OnceException;
import io.github.once.Outcome;
import io.github.once.StoreOperation;
import io.github.once.StoreRejectedException;
import io.github.once.StoreUnavailableException;
import io.github.once.Task;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * the keys are released (or rolled back with the unit), so none of them stays busy.
 */
public final class UnitRunner {

    private static final Logger log = LoggerFactory.getLogger(UnitRunner.class);

    private final IdempotencyConfig config;
    private final IdempotencyStore store;
    private final StoreCalls calls;
    private final ScheduledExecutorService renewals;

    public UnitRunner(IdempotencyConfig config, IdempotencyStore store, StoreCalls calls,
                      ScheduledExecutorService renewals) {
        this.config = config;
        this.store = store;
        this.calls = calls;
        this.renewals = renewals;
    }

    /**
     * Runs {@code tasks} in {@code unit}. The tasks in {@code failed} are claimed and released, not run, and keep
     * their outcome; in an atomic unit the tasks from {@code isolateFrom} on run under a mark each.
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

    public ClaimRequest request(Task<?> task) {
        return new ClaimRequest(task.key(), config.fingerprint().of(task.payload()), config.leaseDuration(),
                config.retention());
    }

    /** The outcome of a claim that did not acquire the key. */
    static <T> Outcome<T> answer(Task<T> task, ClaimResult claim) {
        IdempotencyKey key = task.key();
        // Java 17 has no pattern switch: the chain below covers every permitted ClaimResult but Acquired.
        if (claim instanceof ClaimResult.Busy busy) {
            return new Outcome.Busy<>(key, busy.leaseUntil());
        } else if (claim instanceof ClaimResult.Duplicate duplicate) {
            T result;
            try {
                result = task.codec().decode(duplicate.record().result());
            } catch (RuntimeException e) {
                // Written by another version, perhaps: this task fails, the batch goes on.
                log.warn("The stored result of {} could not be decoded", key, e);
                return new Outcome.Failed<>(key, e);
            }
            return new Outcome.Duplicate<>(key, result, duplicate.record());
        } else if (claim instanceof ClaimResult.Conflict conflict) {
            return new Outcome.Conflict<>(key, conflict.record());
        }
        throw new OnceException("unexpected claim result " + claim);
    }

    /** A task whose handler succeeded, its lease held until its completion is recorded. */
    private static final class Held<T> {
        final int index;
        final Task<T> task;
        final LeaseKeeper keeper;
        T result;
        byte[] encoded;

        Held(int index, Task<T> task, LeaseKeeper keeper) {
            this.index = index;
            this.task = task;
            this.keeper = keeper;
        }
    }

    private final class Run<T> {
        private final ExecutionScope.Unit unit;
        private final List<Task<T>> tasks;
        private final Map<Integer, Outcome<T>> failed;
        private final int isolateFrom;
        private final boolean single;
        private final List<Outcome<T>> outcomes;
        private final List<Held<T>> held = new ArrayList<>();
        private boolean claimedAny;

        Run(ExecutionScope.Unit unit, List<Task<T>> tasks, Map<Integer, Outcome<T>> failed, int isolateFrom) {
            this.unit = unit;
            this.tasks = tasks;
            this.failed = failed;
            this.isolateFrom = isolateFrom;
            this.single = tasks.size() == 1;
            this.outcomes = Arrays.asList(newOutcomes(tasks.size()));
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
                ClaimRequest request = request(tasks.get(i));
                requests.add(request);
                repeat[i] = !seen.add(request.key());
                if (!repeat[i]) {
                    firsts.add(request);
                }
            }
            List<ClaimResult> claims = single
                    ? List.of(calls.timed(StoreOperation.CLAIM, 1, () -> unit.claim(firsts.get(0))))
                    : calls.timed(StoreOperation.CLAIM_ALL, firsts.size(), () -> unit.claimAll(firsts));
            if (claims.size() != firsts.size()) {
                throw new OnceException("store answered " + claims.size() + " claims for " + firsts.size() + " requests");
            }
            int next = 0;
            for (int i = 0; i < tasks.size(); i++) {
                Task<T> task = tasks.get(i);
                ClaimResult claim;
                if (repeat[i]) {
                    // A repeated key must see the earlier one's record: write what is held first.
                    complete();
                    ClaimRequest request = requests.get(i);
                    claim = calls.timed(StoreOperation.CLAIM, 1, () -> unit.claim(request));
                } else {
                    claim = claims.get(next++);
                }
                Outcome<T> failure = failed.get(i);
                if (!(claim instanceof ClaimResult.Acquired acquired)) {
                    outcomes.set(i, failure != null ? failure : answer(task, claim));
                    continue;
                }
                claimedAny = true;
                if (acquired.takeovers() > 0 && failure == null) {
                    tookOver(acquired);
                }
                if (failure != null) {
                    // Failed in an earlier run of this batch: give the key back so a redelivery can retry at once.
                    release(acquired.lease());
                    outcomes.set(i, failure);
                    continue;
                }
                if (acquired.takeovers() >= config.crashLoopAfter()) {
                    // Its earlier owners died in the handler: do not run it again. The release ends the count, so
                    // a message moved back from the dead-letter queue gets as many tries again.
                    release(acquired.lease());
                    outcomes.set(i, new Outcome.CrashLoop<>(task.key(), acquired.takeovers()));
                    continue;
                }
                boolean isolated = !unit.atomic() || i >= isolateFrom;
                Outcome<T> failedNow = runHandler(i, task, acquired.lease(), isolated);
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
            if (claimedAny) {
                unit.commit();
            } else {
                unit.rollback(); // nothing to keep
            }
            return Result.committed(outcomes);
        }

        private void tookOver(ClaimResult.Acquired acquired) {
            Lease lease = acquired.lease();
            if (acquired.takeovers() >= config.crashLoopAfter()) {
                log.warn("{} was taken over from lapsed leases {} times in a row (limit {}): a crash loop; its handler"
                        + " does not run again", lease.key(), acquired.takeovers(), config.crashLoopAfter());
            } else {
                log.warn("Took over {} (token {}) from a lease that lapsed without completion or release ({} in a"
                        + " row): its owner most likely died in the handler", lease.key(), lease.token(),
                        acquired.takeovers());
            }
            calls.listener().onTakeover(lease);
        }

        /** Runs one handler; null when it succeeded (its completion is then held), else its {@code Failed}. */
        private Outcome<T> runHandler(int index, Task<T> task, Lease lease, boolean isolated) {
            ExecutionScope.Mark mark = isolated ? unit.mark() : null;
            LeaseKeeper keeper = new LeaseKeeper(lease, config.leaseDuration(),
                    l -> calls.timed(StoreOperation.RENEW, 1, () -> store.renew(l, config.leaseDuration())),
                    calls.listener());
            if (unit.renewsLeases()) {
                keeper.start(renewals);
            }
            Held<T> mine = new Held<>(index, task, keeper);
            held.add(mine); // from here on, anything escaping gives this lease back too
            try {
                mine.result = handle(task, new HandlerContext(lease, keeper::held, unit::resource,
                        new StepRunner(unit, config, store, calls, renewals)));
                mine.encoded = task.codec().encode(mine.result);
                if (mine.encoded != null && mine.encoded.length > config.maxResultBytes()) {
                    throw new StoreRejectedException("the result of " + task.key() + " is " + mine.encoded.length
                            + " bytes, over the limit of " + config.maxResultBytes() + " (maxResultBytes)", task.key());
                }
            } catch (Exception e) {
                held.remove(held.size() - 1);
                keeper.stop();
                if (isolated) {
                    mark.undo();
                    release(keeper.current());
                }
                return new Outcome.Failed<>(task.key(), e);
            }
            if (mark != null) {
                mark.keep();
            }
            return null;
        }

        /** Runs the handler and tells the listener how it ended, before anything is recorded or given back. */
        private T handle(Task<T> task, HandlerContext context) throws Exception {
            long started = System.nanoTime();
            T result;
            try {
                result = task.handler().handle(context);
            } catch (Exception | Error e) {
                calls.listener().onHandler(task.key(), Duration.ofNanos(System.nanoTime() - started), e);
                throw e;
            }
            calls.listener().onHandler(task.key(), Duration.ofNanos(System.nanoTime() - started), null);
            return result;
        }

        /** Records the completions held so far, with one store call. */
        private void complete() {
            if (held.isEmpty()) {
                return;
            }
            List<Completion> completions = new ArrayList<>(held.size());
            for (Held<T> h : held) {
                h.keeper.stop();
                completions.add(new Completion(h.keeper.current(), h.encoded, config.retention()));
            }
            List<Boolean> recorded = single
                    ? List.of(calls.timed(StoreOperation.COMPLETE, 1, () -> unit.complete(completions.get(0))))
                    : calls.timed(StoreOperation.COMPLETE_ALL, completions.size(), () -> unit.completeAll(completions));
            if (recorded.size() != completions.size()) {
                throw new OnceException("store answered " + recorded.size() + " completions for " + completions.size());
            }
            for (int j = 0; j < held.size(); j++) {
                Held<T> h = held.get(j);
                Lease lease = h.keeper.current();
                if (recorded.get(j)) {
                    outcomes.set(h.index, new Outcome.Processed<>(h.task.key(), h.result, lease.token()));
                } else {
                    log.warn("Lease on {} (token {}) was taken over while the handler ran; its completion was refused",
                            lease.key(), lease.token());
                    outcomes.set(h.index, new Outcome.LeaseLost<>(h.task.key(), lease));
                }
            }
            held.clear();
        }

        private void stopRenewals() {
            for (Held<T> h : held) {
                h.keeper.stop();
            }
            held.clear();
        }

        /** Something escaped: no lease of this run may stay held (renewed, or busy until the process dies). */
        private void giveBack(Throwable cause) {
            List<Held<T>> leases = new ArrayList<>(held);
            stopRenewals();
            if (unit.atomic()) {
                try {
                    unit.rollback();
                } catch (RuntimeException e) {
                    cause.addSuppressed(e);
                }
                return;
            }
            for (Held<T> h : leases) {
                try {
                    release(h.keeper.current());
                } catch (RuntimeException e) {
                    cause.addSuppressed(e);
                }
            }
        }

        private void release(Lease lease) {
            try {
                calls.timed(StoreOperation.RELEASE, 1, () -> unit.release(lease));
            } catch (StoreUnavailableException e) {
                // The lease lapses on its own; a redelivery can claim the key once it has.
                log.warn("Could not release {}; it frees itself when its lease ends", lease.key(), e);
            }
        }
    }
}
