package io.github.once.bench.e2e;

import io.github.once.OnceListener;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where a Once variant's time goes: the store calls the executor makes, counted and timed per operation. This is
 * the harness's own profile: with the total run time it tells how much of a message's cost is store round trips.
 */
final class StoreTimes implements OnceListener {

    private final Map<OnceListener.StoreOperation, LongAdder> calls = new EnumMap<>(OnceListener.StoreOperation.class);
    private final Map<OnceListener.StoreOperation, LongAdder> nanos = new EnumMap<>(OnceListener.StoreOperation.class);

    StoreTimes() {
        for (OnceListener.StoreOperation op : OnceListener.StoreOperation.values()) {
            calls.put(op, new LongAdder());
            nanos.put(op, new LongAdder());
        }
    }

    @Override
    public void onStoreCall(OnceListener.StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
        calls.get(operation).increment();
        nanos.get(operation).add(elapsed.toNanos());
    }

    long calls(OnceListener.StoreOperation op) {
        return calls.get(op).sum();
    }

    long nanos(OnceListener.StoreOperation op) {
        return nanos.get(op).sum();
    }

    /** Adds another run's times into this one. */
    void add(StoreTimes other) {
        for (OnceListener.StoreOperation op : OnceListener.StoreOperation.values()) {
            calls.get(op).add(other.calls(op));
            nanos.get(op).add(other.nanos(op));
        }
    }
}
