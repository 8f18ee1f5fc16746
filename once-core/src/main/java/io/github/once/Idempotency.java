package io.github.once;

import io.github.once.internal.LeaseKeeper;
import io.github.once.internal.SafeListener;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor: claims a key, runs the handler while renewing the lease, and records completion with the result.
 * The record is written in a step of its own after the handler: if the process dies between the handler's
 * effect and that step, a redelivery runs the handler again once the lease lapses. For effects in a database,
 * a transactional executor closes that window.
 *
 * <pre>{@code
 * try (Idempotency once = Idempotency.builder(store).build()) {
 *     Outcome<String> outcome = once.execute(IdempotencyKey.of("orders", messageId), body, ResultCodec.utf8(),
 *             ctx -> chargeCard(order));
 * }
 * }</pre>
 */
public final class Idempotency implements IdempotentExecutor {

    private static final Logger log = LoggerFactory.getLogger(Idempotency.class);

    private final IdempotencyStore store;
    private final IdempotencyConfig config;
    private final Clock clock;
    private final SafeListener listener;
    private final ScheduledExecutorService renewals;
    private final boolean ownsRenewals;

    private Idempotency(Builder b) {
        this.store = b.store;
        this.config = b.config;
        this.clock = b.clock;
        this.listener = new SafeListener(b.listener);
        this.ownsRenewals = b.renewals == null;
        this.renewals = ownsRenewals ? newRenewalScheduler() : b.renewals;
    }

    public static Builder builder(IdempotencyStore store) {
        return new Builder(store);
    }

    public IdempotencyConfig config() {
        return config;
    }

    public IdempotencyStore store() {
        return store;
    }

    @Override
    public <T> Outcome<T> execute(Task<T> task) {
        Instant start = clock.instant();
        ClaimResult claim = timed(StoreOperation.CLAIM, 1, () -> store.claim(request(task)));
        Step<T> step = step(task, claim);
        if (step.done() != null) {
            return report(step.done(), start);
        }
        step.stopRenewing();
        boolean recorded = timed(StoreOperation.COMPLETE, 1,
                () -> store.complete(step.keeper.current(), step.encoded, config.retention()));
        return report(step.recorded(recorded), start);
    }

    /**
     * Claims every task's key in one store call and records every completion in one more (one round trip each
     * where the store can), running the handlers in turn between the two. Each finished handler's lease keeps
     * being renewed until the batch's completions are recorded. If the store cannot be reached for the
     * completions, the whole batch's records stay in progress and lapse with their leases: a redelivery may run
     * those handlers again, as with a crash after the effect.
     */
    @Override
    public <T> List<Outcome<T>> executeAll(List<Task<T>> tasks) {
        if (tasks.isEmpty()) {
            return List.of();
        }
        Instant start = clock.instant();
        List<ClaimRequest> requests = new ArrayList<>(tasks.size());
        for (Task<T> task : tasks) {
            requests.add(request(task));
        }
        List<ClaimResult> claims = timed(StoreOperation.CLAIM_ALL, tasks.size(), () -> store.claimAll(requests));
        if (claims.size() != tasks.size()) {
            throw new OnceException("store answered " + claims.size() + " claims for " + tasks.size() + " requests");
        }
        List<Step<T>> steps = new ArrayList<>(tasks.size());
        List<Completion> completions = new ArrayList<>();
        try {
            for (int i = 0; i < tasks.size(); i++) {
                steps.add(step(tasks.get(i), claims.get(i)));
            }
        } catch (Error e) {
            steps.forEach(Step::stopRenewing); // the leases taken so far lapse on their own
            throw e;
        }
        for (Step<T> step : steps) {
            step.stopRenewing();
            if (step.done() == null) {
                completions.add(new Completion(step.keeper.current(), step.encoded, config.retention()));
            }
        }
        List<Boolean> recorded = completions.isEmpty() ? List.of()
                : timed(StoreOperation.COMPLETE_ALL, completions.size(), () -> store.completeAll(completions));
        if (recorded.size() != completions.size()) {
            throw new OnceException("store answered " + recorded.size() + " completions for " + completions.size());
        }
        List<Outcome<T>> outcomes = new ArrayList<>(tasks.size());
        int next = 0;
        for (Step<T> step : steps) {
            outcomes.add(report(step.done() != null ? step.done() : step.recorded(recorded.get(next++)), start));
        }
        return outcomes;
    }

    private ClaimRequest request(Task<?> task) {
        return new ClaimRequest(task.key(), config.fingerprint().of(task.payload()), config.leaseDuration(),
                config.retention());
    }

    private <T> Outcome<T> report(Outcome<T> outcome, Instant start) {
        listener.onOutcome(outcome, Duration.between(start, clock.instant()));
        return outcome;
    }

    /** Answers a claim; for an acquired key, runs the handler and leaves the completion to the caller. */
    private <T> Step<T> step(Task<T> task, ClaimResult claim) {
        // Java 17 has no pattern switch: the chain below covers every permitted ClaimResult.
        if (claim instanceof ClaimResult.Acquired acquired) {
            return run(task, acquired.lease());
        } else if (claim instanceof ClaimResult.Busy busy) {
            return Step.finished(new Outcome.Busy<>(task.key(), busy.leaseUntil()));
        } else if (claim instanceof ClaimResult.Duplicate duplicate) {
            return Step.finished(new Outcome.Duplicate<>(task.key(), task.codec().decode(duplicate.record().result()),
                    duplicate.record()));
        } else if (claim instanceof ClaimResult.Conflict conflict) {
            return Step.finished(new Outcome.Conflict<>(task.key(), conflict.record()));
        }
        throw new OnceException("unknown claim result " + claim);
    }

    private <T> Step<T> run(Task<T> task, Lease lease) {
        LeaseKeeper keeper = new LeaseKeeper(lease, config.leaseDuration(),
                l -> timed(StoreOperation.RENEW, 1, () -> store.renew(l, config.leaseDuration())));
        keeper.start(renewals);
        T result;
        try {
            result = task.handler().handle(ExecutionContext.of(lease, keeper::held));
        } catch (Exception e) {
            keeper.stop();
            releaseQuietly(lease);
            return Step.finished(new Outcome.Failed<>(task.key(), e));
        } catch (Error e) {
            keeper.stop();
            releaseQuietly(lease);
            throw e;
        }
        byte[] encoded;
        try {
            encoded = task.codec().encode(result);
        } catch (RuntimeException e) {
            keeper.stop();
            releaseQuietly(lease);
            return Step.finished(new Outcome.Failed<>(task.key(), e));
        }
        return new Step<>(task, keeper, result, encoded);
    }

    /** A task between its handler and its completion, or one already decided ({@link #done()} not null). */
    private static final class Step<T> {
        private final Task<T> task;
        private final LeaseKeeper keeper;
        private final T result;
        private final byte[] encoded;
        private final Outcome<T> decided;

        private Step(Task<T> task, LeaseKeeper keeper, T result, byte[] encoded) {
            this.task = task;
            this.keeper = keeper;
            this.result = result;
            this.encoded = encoded;
            this.decided = null;
        }

        private Step(Outcome<T> decided) {
            this.task = null;
            this.keeper = null;
            this.result = null;
            this.encoded = null;
            this.decided = decided;
        }

        static <T> Step<T> finished(Outcome<T> outcome) {
            return new Step<>(outcome);
        }

        Outcome<T> done() {
            return decided;
        }

        void stopRenewing() {
            if (keeper != null) {
                keeper.stop();
            }
        }

        /** The outcome once the store answered the completion. */
        Outcome<T> recorded(boolean recorded) {
            if (!recorded) {
                log.warn("Lease on {} (token {}) was taken over while the handler ran; its completion was refused",
                        task.key(), keeper.current().token());
                return new Outcome.LeaseLost<>(task.key(), keeper.current());
            }
            return new Outcome.Processed<>(task.key(), result, keeper.current().token());
        }
    }

    private void releaseQuietly(Lease lease) {
        try {
            timed(StoreOperation.RELEASE, 1, () -> store.release(lease));
        } catch (StoreUnavailableException e) {
            // The lease lapses on its own; a redelivery can claim the key once it has.
            log.warn("Could not release {} after a handler failure; it frees itself when its lease ends", lease.key(), e);
        }
    }

    private <R> R timed(StoreOperation operation, int keys, Supplier<R> call) {
        long started = System.nanoTime();
        try {
            R result = call.get();
            listener.onStoreCall(operation, keys, Duration.ofNanos(System.nanoTime() - started), null);
            return result;
        } catch (RuntimeException e) {
            listener.onStoreCall(operation, keys, Duration.ofNanos(System.nanoTime() - started), e);
            throw e;
        }
    }

    /** Stops the renewal thread (if this executor made it). The store is the caller's to close. */
    @Override
    public void close() {
        if (ownsRenewals) {
            renewals.shutdownNow();
        }
    }

    private static ScheduledExecutorService newRenewalScheduler() {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "once-lease-renewal");
            t.setDaemon(true);
            return t;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.setKeepAliveTime(30, TimeUnit.SECONDS);
        return executor;
    }

    public static final class Builder {
        private final IdempotencyStore store;
        private IdempotencyConfig config = IdempotencyConfig.defaults();
        private Clock clock = Clock.systemUTC();
        private OnceListener listener = OnceListener.NONE;
        private ScheduledExecutorService renewals;

        private Builder(IdempotencyStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        public Builder config(IdempotencyConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** The clock that times executions for the listener. Lease deadlines use the store's clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder listener(OnceListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** A scheduler for lease renewals, shared and closed by the caller; by default the executor owns one. */
        public Builder renewalScheduler(ScheduledExecutorService renewals) {
            this.renewals = Objects.requireNonNull(renewals, "renewals");
            return this;
        }

        public Idempotency build() {
            return new Idempotency(this);
        }
    }
}
