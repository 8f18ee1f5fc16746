package io.github.once.internal;

import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.OnceException;
import io.github.once.OnceListener;
import io.github.once.Outcome;
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
import java.util.concurrent.ScheduledExecutorService;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What each step of one task means, apart from when steps run (the unit runner's): the
 * claim request, the outcome of a claim that did not acquire, takeovers and crash loops, running the handler
 * under its lease (a throwing handler or codec, or a result over the size limit, is {@code Failed}), and the
 * outcome of a recorded or refused completion. It makes no decision about when steps run.
 */
public final class TaskSteps {

    private static final Logger log = LoggerFactory.getLogger(TaskSteps.class);

    private final IdempotencyConfig config;
    private final IdempotencyStore store;
    private final StoreCalls calls;
    private final ScheduledExecutorService renewals;

    public TaskSteps(IdempotencyConfig config, IdempotencyStore store, StoreCalls calls,
                     ScheduledExecutorService renewals) {
        this.config = config;
        this.store = store;
        this.calls = calls;
        this.renewals = renewals;
    }

    public StoreCalls calls() {
        return calls;
    }

    public ClaimRequest request(Task<?> task) {
        return new ClaimRequest(task.key(), config.fingerprint().of(task.payload()), config.leaseDuration(),
                config.retention());
    }

    /** The outcome of a claim that did not acquire the key; {@code fingerprint} is the task's payload's. */
    public static <T> Outcome<T> answer(Task<T> task, ClaimResult claim, String fingerprint) {
        IdempotencyKey key = task.key();
        // Java 17 has no pattern switch: the chain below covers every permitted ClaimResult but Acquired.
        if (claim instanceof ClaimResult.Busy busy) {
            return new Outcome.Busy<>(key, busy.leaseUntil());
        } else if (claim instanceof ClaimResult.Duplicate duplicate) {
            T result;
            try {
                result = task.codec().decode(duplicate.record().result());
            } catch (RuntimeException e) {
                // Written by another version, perhaps: this task fails, the others go on.
                log.warn("The stored result of {} could not be decoded", key, e);
                return new Outcome.Failed<>(key, e);
            }
            return new Outcome.Duplicate<>(key, result, duplicate.record());
        } else if (claim instanceof ClaimResult.Conflict conflict) {
            return new Outcome.Conflict<>(key, conflict.record(), fingerprint);
        }
        throw new OnceException("unexpected claim result " + claim);
    }

    /**
     * A claim that acquired the key: reports a takeover of a lapsed lease, and answers {@code CrashLoop} when the
     * key's earlier owners died in the handler too often (the caller then releases the key and does not run the
     * handler); null when the handler may run.
     */
    public <T> Outcome<T> acquired(Task<T> task, ClaimResult.Acquired acquired) {
        if (acquired.takeovers() > 0) {
            tookOver(acquired);
        }
        if (acquired.takeovers() >= config.crashLoopAfter()) {
            // Its earlier owners died in the handler: do not run it again. The release ends the count, so a
            // message moved back from the dead-letter queue gets as many tries again.
            return new Outcome.CrashLoop<>(task.key(), acquired.takeovers());
        }
        return null;
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

    /** A keeper of {@code lease}, renewing through the store; started where the unit asks for renewal. */
    public <T> Held<T> hold(Task<T> task, Lease lease, boolean renew) {
        LeaseKeeper keeper = new LeaseKeeper(lease, config.leaseDuration(),
                l -> calls.timed(OnceListener.StoreOperation.RENEW, 1, () -> store.renew(l, config.leaseDuration())),
                calls.listener());
        if (renew) {
            keeper.start(renewals);
        }
        return new Held<>(task, keeper);
    }

    /**
     * Runs the held task's handler in {@code unit} and encodes its result; null when it succeeded (the result and
     * its bytes are then kept in {@code held}), else its {@code Failed}, with the renewals stopped. Giving the key
     * back is the caller's. An {@link Error} escapes.
     */
    public <T> Outcome<T> run(Held<T> held, ExecutionScope.Unit unit) {
        Task<T> task = held.task();
        LeaseKeeper keeper = held.keeper();
        try {
            held.result = handle(task, new HandlerContext(keeper.current(), keeper::held, unit::resource,
                    new StepRunner(unit, config, store, calls, renewals)));
            held.encoded = task.codec().encode(held.result);
            if (held.encoded != null && held.encoded.length > config.maxResultBytes()) {
                throw new StoreRejectedException("the result of " + task.key() + " is " + held.encoded.length
                        + " bytes, over the limit of " + config.maxResultBytes() + " (maxResultBytes)", task.key());
            }
        } catch (Exception e) {
            keeper.stop();
            return new Outcome.Failed<>(task.key(), e);
        }
        return null;
    }

    /** Runs the handler and tells the listener how it ended, before anything is recorded or given back. */
    private <T> T handle(Task<T> task, HandlerContext context) throws Exception {
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

    /** The completion of a handler that succeeded; stops its renewals, so the lease it names is final. */
    public Completion completion(Held<?> held) {
        held.keeper().stop();
        return new Completion(held.keeper().current(), held.encoded, config.retention());
    }

    /** {@code Processed} when the completion was recorded, {@code LeaseLost} when it was refused. */
    public <T> Outcome<T> completed(Held<T> held, boolean recorded) {
        Lease lease = held.keeper().current();
        if (recorded) {
            return new Outcome.Processed<>(held.task().key(), held.result, lease.token());
        }
        log.warn("Lease on {} (token {}) was taken over while the handler ran; its completion was refused",
                lease.key(), lease.token());
        return new Outcome.LeaseLost<>(held.task().key(), lease);
    }

    /**
     * Gives a key back through {@code unit}; false when the store could not be reached (the lease then lapses on
     * its own, and a redelivery can claim the key once it has).
     */
    public boolean release(ExecutionScope.Unit unit, Lease lease) {
        try {
            calls.timed(OnceListener.StoreOperation.RELEASE, 1, () -> unit.release(lease));
            return true;
        } catch (StoreUnavailableException e) {
            log.warn("Could not release {}; it frees itself when its lease ends", lease.key(), e);
            return false;
        }
    }

    /** A task whose key is claimed: its lease keeper, and once its handler succeeded, its result and bytes. */
    public static final class Held<T> {
        private final Task<T> task;
        private final LeaseKeeper keeper;
        T result;
        byte[] encoded;

        Held(Task<T> task, LeaseKeeper keeper) {
            this.task = task;
            this.keeper = keeper;
        }

        public Task<T> task() {
            return task;
        }

        public LeaseKeeper keeper() {
            return keeper;
        }
    }
}
