package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.IdempotentExecutor;
import io.github.once.InMemoryIdempotencyStore;

import java.time.Duration;

/** The in-memory store shared by every consumer of the test; effects in a map. */
final class InMemoryVariant implements StoreVariant {
    final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.create();
    final Ledger ledger = new Ledger();

    @Override
    public IdempotentExecutor executor(Duration lease) {
        return Idempotency.builder(store).config(StoreVariant.config(lease)).build();
    }

    @Override
    public void effect(String id, DeliveryContext context) {
        ledger.record(id);
    }

    @Override
    public int effects(String id) {
        return ledger.count(id);
    }

    @Override
    public long totalEffects() {
        return ledger.total();
    }

    @Override
    public long distinctEffects() {
        return ledger.distinct();
    }
}
