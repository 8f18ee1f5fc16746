package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.OnceListener;

import java.time.Duration;

/**
 * The in-memory store behind a {@link CuttableStore}: a switch that cuts the store off (every call fails, as an
 * unreachable store's does) while keeping its records. Effects in a map.
 */
final class CuttableVariant extends LedgerVariant {
    final InMemoryIdempotencyStore records = InMemoryIdempotencyStore.builder().build();
    final CuttableStore store = new CuttableStore(records);
    private final OnceListener listener;

    CuttableVariant(OnceListener listener) {
        this.listener = listener;
    }

    @Override
    public Idempotency executor(Duration lease) {
        return executor(lease, listener);
    }

    @Override
    public Idempotency executor(Duration lease, OnceListener listener) {
        return Idempotency.builder(store).config(StoreVariant.config(lease)).listener(listener).build();
    }

}
