package io.github.once.internal;

import io.github.once.StoreOperation;

import java.time.Duration;
import java.util.function.Supplier;

/** Times each store call of an executor for its listener, failures included. */
public final class StoreCalls {

    private final SafeListener listener;

    public StoreCalls(SafeListener listener) {
        this.listener = listener;
    }

    /** The executor's listener, for the events that are not store calls. */
    public SafeListener listener() {
        return listener;
    }

    public <R> R timed(StoreOperation operation, int keys, Supplier<R> call) {
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
}
