package io.github.once.testkit;

import io.github.once.InMemoryIdempotencyStore;
import io.github.once.TieredIdempotencyStore;
import io.github.once.spi.IdempotencyStore;

/** The tiered store, an in-memory front over an in-memory store of record, passes the whole contract. */
class TieredInMemoryStoreContractTest extends IdempotencyStoreContract {
    @Override
    protected IdempotencyStore createStore() {
        return TieredIdempotencyStore.of(InMemoryIdempotencyStore.create(), InMemoryIdempotencyStore.create());
    }

    /** A store of record that is full: every new key is refused with StoreFullException. */
    @Override
    protected IdempotencyStore createFailingStore() {
        return TieredIdempotencyStore.of(InMemoryIdempotencyStore.create(), InMemoryStoreContractTest.full());
    }
}
