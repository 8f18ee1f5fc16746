package io.github.once;

import io.github.once.internal.CallObserver;
import io.github.once.internal.SafeListener;
import io.github.once.internal.StoreCallScope;
import io.github.once.internal.StoreCalls;
import io.github.once.internal.TaskSteps;
import io.github.once.internal.UnitRunner;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.TransactionalStore;
import io.micrometer.observation.ObservationRegistry;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor: claims a key, runs the handler, and records completion with the result, or gives the key back.
 * Where those steps run is its {@link ExecutionScope}. By default each is a store call of its own and the lease is
 * renewed while the handler runs: if the process dies between the handler's effect and the completion, a
 * redelivery runs the handler again once the lease lapses. once-jdbc's transactional scope closes that window for
 * effects in the same database: claim, handler writes and completion commit in one transaction.
 *
 * <pre>{@code
 * try (Idempotency once = Idempotency.builder(store).build()) {
 *     Outcome<String> outcome = once.execute(IdempotencyKey.of("orders", messageId), body, ResultCodec.utf8(),
 *             ctx -> chargeCard(order));
 * }
 * }</pre>
 */
public final class Idempotency implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Idempotency.class);

    private final IdempotencyStore store;
    private final ExecutionScope scope;
    private final IdempotencyConfig config;
    private final Clock clock;
    private final SafeListener listener;
    private final ScheduledExecutorService renewals;
    private final boolean ownsRenewals;
    private final TaskSteps steps;
    private final UnitRunner runner;
    /** Null without observations: then no Micrometer class is ever loaded. */
    final StoreCallObservations observations;

    private Idempotency(Builder b) {
        this.store = b.store;
        this.scope = b.scope != null ? b.scope : new StoreCallScope(b.store);
        this.config = b.config;
        this.clock = b.clock;
        this.listener = new SafeListener(b.listeners);
        this.ownsRenewals = b.renewals == null;
        this.renewals = ownsRenewals ? newRenewalScheduler() : b.renewals;
        // Tasks that run in a scope of their own (a transaction) rather than one store call per step.
        this.observations = b.observationRegistry == null ? null : new StoreCallObservations(b.observationRegistry,
                OnceObservation.storeKind(store), scope instanceof StoreCallScope ? "default" : "transactional");
        CallObserver observer = observations == null ? CallObserver.NONE : observations;
        this.steps = new TaskSteps(config, store, new StoreCalls(listener, observer), renewals);
        this.runner = new UnitRunner(steps);
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

    /**
     * Whether this executor reports observations ({@link Builder#observationRegistry}); the RabbitMQ consumer and
     * the Spring advice then observe each delivery too.
     */
    public boolean observed() {
        return observations != null;
    }

    /**
     * Runs one task: claims its key, runs its handler if the claim acquired it, and records the completion (or
     * gives the key back when the handler failed).
     *
     * A record the store refuses (a {@link StoreRejectedException}: it would fail the same way every time) makes
     * the outcome {@code Failed} with that exception, so the caller can set the message aside and go on.
     *
     * @throws StoreUnavailableException when the store cannot be reached before or after the handler; the
     *                                   message must then be neither acknowledged nor dropped
     */
    public <T> Outcome<T> execute(Task<T> task) {
        return execute(scope, task);
    }

    /** {@link #execute(Task)} of a task made of these parts. */
    public <T> Outcome<T> execute(IdempotencyKey key, byte[] payload, ResultCodec<T> codec, Handler<T> handler) {
        return execute(new Task<>(key, payload, codec, handler));
    }

    /**
     * Runs one task in {@code scope} instead of this executor's own, such as a transaction the caller manages
     * (once-jdbc's {@code JdbcTransactionScope.joining}).
     *
     * @throws IllegalArgumentException when the scope records in another store than this executor
     */
    public <T> Outcome<T> execute(ExecutionScope scope, Task<T> task) {
        requireStore(scope, store);
        Objects.requireNonNull(task, "task");
        Instant start = clock.instant();
        return report(runOne(scope, task), start);
    }

    private <T> Outcome<T> runOne(ExecutionScope scope, Task<T> task) {
        UnitRunner.Result<T> result;
        try (ExecutionScope.Unit unit = scope.begin()) {
            result = runner.run(unit, List.of(task), Map.of(), 1);
        } catch (StoreRejectedException e) {
            // This record fails the same way every time: its task fails, the caller's queue goes on.
            return new Outcome.Failed<>(task.key(), e);
        }
        return result.isCommitted() ? result.outcomes().get(0) : result.failure();
    }

    /**
     * Runs the tasks in one unit of the scope: one claim call for all distinct keys, the handlers one after
     * another, one completion call (a key repeated in the batch is claimed at its turn, after the completions so
     * far, and so sees the earlier one). By default each finished handler's lease keeps being renewed until the
     * batch's completions are recorded; if anything escapes before, the leases still held are released.
     *
     * <p>In a scope whose units roll back (a database transaction), the handlers run without savepoints. When one
     * fails, the unit rolls back (the effects so far and the claims go with it), that task is {@code Failed}, and
     * the batch runs again without it in a new unit, where its key is claimed and released so a redelivery can
     * retry at once; in that run the tasks after the failed one run under a savepoint each, so further failures
     * undo only their own effect. Each rollback removes one task: a batch of n runs at most n + 1 units.
     * <b>Handlers may then run more than once</b>: effects outside the unit (an HTTP call, a message sent)
     * repeat; use {@link #execute(Task)} per task for such handlers. A unit lost to a deadlock or a serialization
     * failure committed nothing; its tasks not yet failed then run one by one. So do the tasks of a batch in which
     * the store refused a record ({@link StoreRejectedException}), so that only that record's task fails.
     */
    public <T> List<Outcome<T>> executeAll(List<Task<T>> tasks) {
        if (tasks.size() <= 1) {
            return tasks.isEmpty() ? List.of() : List.of(execute(tasks.get(0)));
        }
        Instant start = clock.instant();
        List<Outcome<T>> outcomes = runBatch(tasks);
        for (Outcome<T> outcome : outcomes) {
            report(outcome, start);
        }
        return outcomes;
    }

    /** The batch algorithm of {@link #executeAll}, without reporting outcomes. */
    private <T> List<Outcome<T>> runBatch(List<Task<T>> tasks) {
        Map<Integer, Outcome<T>> failed = new HashMap<>();
        int isolateFrom = tasks.size();
        while (true) {
            ExecutionScope.Unit unit = scope.begin();
            UnitRunner.Result<T> result;
            try {
                result = runner.run(unit, tasks, failed, isolateFrom);
            } catch (ExecutionScope.UnitLostException lost) {
                unit.close();
                log.debug("Batch of {} lost a race ({}); running its tasks one by one", tasks.size(), lost.getMessage());
                return oneByOne(tasks, failed);
            } catch (StoreRejectedException refused) {
                // The store refused a record of the batch and may not say which: one by one, only its task fails.
                unit.close();
                log.debug("The store refused a record of a batch of {} ({}); running its tasks one by one",
                        tasks.size(), refused.getMessage());
                return oneByOne(tasks, failed);
            } catch (RuntimeException | Error e) {
                try {
                    unit.close();
                } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                }
                throw e;
            }
            unit.close();
            if (result.isCommitted()) {
                return result.outcomes();
            }
            if (tasks.size() == 1) {
                // Rolled back with its claim: the key is free again, as after execute(task).
                return List.of(result.failure());
            }
            // Rolled back: run again without it, sparing the tasks not yet seen a rollback of their own.
            failed.put(result.failedAt(), result.failure());
            isolateFrom = Math.min(isolateFrom, result.failedAt() + 1);
        }
    }

    private <T> List<Outcome<T>> oneByOne(List<Task<T>> tasks, Map<Integer, Outcome<T>> failed) {
        List<Outcome<T>> outcomes = new ArrayList<>(tasks.size());
        for (int i = 0; i < tasks.size(); i++) {
            Outcome<T> failure = failed.get(i);
            outcomes.add(failure != null ? failure : runOne(scope, tasks.get(i)));
        }
        return outcomes;
    }

    private static void requireStore(ExecutionScope scope, IdempotencyStore store) {
        if (Objects.requireNonNull(scope, "scope").store() != store) {
            throw new IllegalArgumentException("the scope records in " + scope.store() + ", not in the executor's "
                    + store);
        }
    }

    private <T> Outcome<T> report(Outcome<T> outcome, Instant start) {
        listener.onOutcome(outcome, Duration.between(start, clock.instant()));
        return outcome;
    }

    /** Stops the renewal thread, if this executor made it. The store is the caller's to close. */
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

    /** Builds an {@link Idempotency}; the store is the one setting without a default. */
    public static final class Builder {
        private final IdempotencyStore store;
        private ExecutionScope scope;
        private IdempotencyConfig config = IdempotencyConfig.defaults();
        private Clock clock = Clock.systemUTC();
        private final List<OnceListener> listeners = new ArrayList<>();
        private ScheduledExecutorService renewals;
        private ObservationRegistry observationRegistry;

        private Builder(IdempotencyStore store) {
            this.store = Objects.requireNonNull(store, "store");
        }

        /**
         * Where the steps run; by default each is a store call of its own, and the lease is renewed while the
         * handler runs. {@link #transactional()} is the scope most callers want instead.
         */
        public Builder scope(ExecutionScope scope) {
            this.scope = Objects.requireNonNull(scope, "scope");
            return this;
        }

        /**
         * Transactional mode: each task (or batch) runs in one database transaction of the store's, so the claim,
         * the handler's writes on {@code context.resource(java.sql.Connection.class)} and the completed record
         * commit together or not at all ({@link TransactionalStore#transactionScope()}).
         *
         * @throws IllegalArgumentException when the store runs no transactions (only once-jdbc's store, or a
         *                                  tiered store over it, does)
         */
        public Builder transactional() {
            if (!(store instanceof TransactionalStore transactional)) {
                throw new IllegalArgumentException("transactional() needs a store that runs transactions, such as"
                        + " once-jdbc's JdbcIdempotencyStore, but the store is " + store);
            }
            return scope(transactional.transactionScope());
        }

        /** Lease (how long a claim counts as live for other consumers), retention and fingerprints. */
        public Builder config(IdempotencyConfig config) {
            this.config = Objects.requireNonNull(config, "config");
            return this;
        }

        /** The clock that times executions for the listener. Lease deadlines use the store's clock. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Adds a listener (meters, your own logs); each one added hears every event, in the order added, and one
         * that throws is logged and ignored.
         */
        public Builder listener(OnceListener listener) {
            this.listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** A scheduler for lease renewals, shared and closed by the caller; by default the executor owns one. */
        public Builder renewalScheduler(ScheduledExecutorService renewals) {
            this.renewals = Objects.requireNonNull(renewals, "renewals");
            return this;
        }

        /**
         * Reports {@link OnceObservation observations} to {@code registry}: {@code once.claim} and
         * {@code once.complete} for each store call (children of the observation open on the calling thread), and
         * through the RabbitMQ consumer or the Spring advice that runs this executor, {@code once.process} and
         * {@code once.handle} for each delivery. Without it (the default) Once makes no observation at all.
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observationRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        /** @throws IllegalArgumentException when the scope records in another store */
        public Idempotency build() {
            if (scope != null) {
                requireStore(scope, store);
            }
            return new Idempotency(this);
        }
    }
}
