package io.github.once.rabbitmq;

import io.github.once.OnceListener;
import io.github.once.StoreOperation;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts the keys whose completion call failed (alone or in a call of several): each such handler ran its effect
 * without a record, so its redelivery may run it again. The outage tests allow exactly that many repeats.
 */
final class FailedCompletions implements OnceListener {
    private final AtomicLong keys = new AtomicLong();

    @Override
    public void onStoreCall(StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
        if ((operation == StoreOperation.COMPLETE || operation == StoreOperation.COMPLETE_ALL) && failure != null) {
            this.keys.addAndGet(keys);
        }
    }

    long count() {
        return keys.get();
    }
}
