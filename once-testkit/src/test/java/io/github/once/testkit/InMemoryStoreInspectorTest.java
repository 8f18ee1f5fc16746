package io.github.once.testkit;

import io.github.once.InMemoryIdempotencyStore;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.StoreInspector;

/** The in-memory store's inspector passes the inspector contract. */
class InMemoryStoreInspectorTest extends StoreInspectorContract {
    @Override
    protected IdempotencyStore createStore() {
        return InMemoryIdempotencyStore.builder().build();
    }

    @Override
    protected StoreInspector inspectorOf(IdempotencyStore store) {
        return ((InMemoryIdempotencyStore) store).inspector();
    }
}
