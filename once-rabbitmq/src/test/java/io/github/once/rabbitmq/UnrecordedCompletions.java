package io.github.once.rabbitmq;

import io.github.once.OnceListener;
import io.github.once.Outcome;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the keys whose handler ran but whose completion was not recorded: the completion call failed (alone or in
 * a call of several), or the store answered it with a refusal ({@link Outcome.LeaseLost}: a store restarted empty
 * has no claim left to complete, whether the call reached it after the restart or was held by the client until
 * then). Each such handler ran its effect without a record, so its redelivery may run it again. The outage tests
 * allow exactly that many repeats.
 */
final class UnrecordedCompletions implements OnceListener {
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();

    @Override
    public void onStoreCall(OnceListener.StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
        if (operation == OnceListener.StoreOperation.COMPLETE && failure != null) {
            failed.addAndGet(keys);
        }
    }

    @Override
    public void onOutcome(Outcome<?> outcome, Duration elapsed) {
        if (outcome instanceof Outcome.LeaseLost<?>) {
            refused.incrementAndGet();
        }
    }

    long count() {
        return failed.get() + refused.get();
    }

    @Override
    public String toString() {
        return failed.get() + " in failed completion calls, " + refused.get() + " refused";
    }
}
