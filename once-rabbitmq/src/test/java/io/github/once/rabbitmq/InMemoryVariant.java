package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.OnceListener;

import java.time.Duration;

/** The in-memory store shared by every consumer of the test; effects in a map. */
final class InMemoryVariant extends LedgerVariant {
    final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().build();

    @Override
    public Idempotency executor(Duration lease) {
        return executor(lease, OnceListener.NONE);
    }

    @Override
    public Idempotency executor(Duration lease, OnceListener listener) {
        return Idempotency.builder(store).config(StoreVariant.config(lease)).listener(listener).build();
    }
}
