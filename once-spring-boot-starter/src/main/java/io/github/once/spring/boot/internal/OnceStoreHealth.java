package io.github.once.spring.boot.internal;

import io.github.once.IdempotencyKey;
import io.github.once.spi.IdempotencyStore;

import java.util.List;
import java.util.Map;

/**
 * Whether the store answers: one read of a key that never exists. Boot-line neutral; the health indicator of
 * each Boot line reports it.
 */
public final class OnceStoreHealth {
    private static final IdempotencyKey PROBE = IdempotencyKey.of("once-health", "probe");

    private final IdempotencyStore store;

    public OnceStoreHealth(IdempotencyStore store) {
        this.store = store;
    }

    /** The store's answer: up, or down with the error. */
    public Result check() {
        long started = System.nanoTime();
        try {
            store.find(List.of(PROBE));
            return new Result(true, Map.of("store", store.toString(),
                    "millis", (System.nanoTime() - started) / 1_000_000));
        } catch (RuntimeException e) {
            return new Result(false, Map.of("store", store.toString(), "error", e.toString()));
        }
    }

    /** Up or down, with details for the health endpoint. */
    public record Result(boolean up, Map<String, Object> details) {
    }
}
