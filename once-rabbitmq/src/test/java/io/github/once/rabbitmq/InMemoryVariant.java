package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.IdempotentExecutor;
import io.github.once.InMemoryIdempotencyStore;

import java.time.Duration;

/** The in-memory store shared by every consumer of the test; effects in a map. */
final class InMemoryVariant extends LedgerVariant {
    final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();

    @Override
    public IdempotentExecutor executor(Duration lease) {
        return Idempotency.builder(store).config(StoreVariant.config(lease)).build();
    }
}
