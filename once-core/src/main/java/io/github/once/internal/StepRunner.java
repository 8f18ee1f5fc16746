package io.github.once.internal;

import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.OnceException;
import io.github.once.OnceListener;
import io.github.once.ResultCodec;
import io.github.once.StepBusyException;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.util.concurrent.Callable;
import java.util.concurrent.ScheduledExecutorService;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a handler's steps in the unit its message runs in: each step is a record of its own under the derived key
 * {@link IdempotencyKey#forStep(String)}, claimed, run and completed through the unit. In the default scope that
 * is three store calls, so a step stays done when the message fails later; in a transaction the step's record
 * commits or rolls back with the message. A step that throws is undone (its savepoint, where the unit has one)
 * and its key released, so a retry runs it again.
 */
public final class StepRunner {

    private static final Logger log = LoggerFactory.getLogger(StepRunner.class);

    private final ExecutionScope.Unit unit;
    private final IdempotencyConfig config;
    private final IdempotencyStore store;
    private final StoreCalls calls;
    private final ScheduledExecutorService renewals;

    public StepRunner(ExecutionScope.Unit unit, IdempotencyConfig config, IdempotencyStore store, StoreCalls calls,
                      ScheduledExecutorService renewals) {
        this.unit = unit;
        this.config = config;
        this.store = store;
        this.calls = calls;
        this.renewals = renewals;
    }

    public <T> T run(IdempotencyKey message, String name, ResultCodec<T> codec, Callable<T> step) throws Exception {
        IdempotencyKey key = message.forStep(name);
        // No fingerprint: a step's input is whatever the handler computed, and its name already says what it is.
        ClaimRequest request = new ClaimRequest(key, null, config.leaseDuration(), config.retention());
        // The mark comes before the claim, so that undoing a failed step in a transaction removes its claim too.
        ExecutionScope.Mark mark = unit.mark();
        ClaimResult claim;
        try {
            claim = calls.claimOne(unit, request);
        } catch (RuntimeException e) {
            mark.undo();
            throw e;
        }
        if (claim instanceof ClaimResult.Acquired acquired) {
            return runAcquired(mark, acquired.lease(), codec, step);
        }
        mark.keep();
        if (claim instanceof ClaimResult.Duplicate duplicate) {
            return codec.decode(duplicate.record().result());
        } else if (claim instanceof ClaimResult.Busy busy) {
            throw new StepBusyException(key, busy.leaseUntil());
        }
        throw new OnceException("unexpected claim result for step " + key + ": " + claim);
    }

    private <T> T runAcquired(ExecutionScope.Mark mark, Lease lease, ResultCodec<T> codec, Callable<T> step)
            throws Exception {
        LeaseKeeper keeper = new LeaseKeeper(lease, config.leaseDuration(),
                l -> calls.timed(OnceListener.StoreOperation.RENEW, 1, () -> store.renew(l, config.leaseDuration())));
        if (unit.renewsLeases()) {
            keeper.start(renewals);
        }
        T result;
        byte[] encoded;
        try {
            result = step.call();
            encoded = codec.encode(result);
        } catch (Exception | Error e) {
            keeper.stop();
            undo(mark, keeper.current(), e);
            throw e;
        }
        keeper.stop();
        boolean recorded;
        try {
            recorded = calls.completeOne(unit, new Completion(keeper.current(), encoded, config.retention()));
        } catch (RuntimeException e) {
            undo(mark, keeper.current(), e);
            throw e;
        }
        if (!recorded) {
            mark.keep();
            throw new OnceException("the lease on step " + lease.key() + " was taken over while the step ran;"
                    + " its completion was refused");
        }
        mark.keep();
        return result;
    }

    private void undo(ExecutionScope.Mark mark, Lease lease, Throwable cause) {
        try {
            mark.undo();
            calls.timed(OnceListener.StoreOperation.RELEASE, 1, () -> unit.release(lease));
        } catch (StoreUnavailableException e) {
            log.warn("Could not release step {}; it frees itself when its lease ends", lease.key(), e);
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }
}
