package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.IdempotentExecutor;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.OnceListener;

import java.time.Duration;

/**
 * The in-memory store behind a {@link SeparateThreadStore}: asynchronous calls answered on a thread of their own,
 * and a switch that cuts the store off (every call fails, as an unreachable store's does) while keeping its
 * records. Effects in a map.
 */
final class SeparateThreadVariant extends LedgerVariant {
    final InMemoryIdempotencyStore records = InMemoryIdempotencyStore.create();
    final SeparateThreadStore store = new SeparateThreadStore(records);
    private final OnceListener listener;

    SeparateThreadVariant(OnceListener listener) {
        this.listener = listener;
    }

    @Override
    public IdempotentExecutor executor(Duration lease) {
        return executor(lease, listener);
    }

    @Override
    public IdempotentExecutor executor(Duration lease, OnceListener listener) {
        return Idempotency.builder(store).config(StoreVariant.config(lease)).listener(listener).build();
    }

    @Override
    public void close() {
        store.close();
    }
}
