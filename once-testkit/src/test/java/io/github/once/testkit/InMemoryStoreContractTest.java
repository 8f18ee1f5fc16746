package io.github.once.testkit;

import io.github.once.InMemoryIdempotencyStore;
import io.github.once.spi.IdempotencyStore;

/** The in-memory store passes the whole contract (it lives here: a test dependency from core would be a cycle). */
class InMemoryStoreContractTest extends IdempotencyStoreContract {
    @Override
    protected IdempotencyStore createStore() {
        return InMemoryIdempotencyStore.create();
    }
}
