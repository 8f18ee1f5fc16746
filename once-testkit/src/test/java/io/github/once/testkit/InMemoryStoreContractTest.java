package io.github.once.testkit;

import io.github.once.IdempotencyKey;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The in-memory store passes the whole contract (it lives here: a test dependency from core would be a cycle). */
class InMemoryStoreContractTest extends IdempotencyStoreContract {
    @Override
    protected IdempotencyStore createStore() {
        return InMemoryIdempotencyStore.builder().build();
    }

    /** A store of one record, holding one: every new key is refused with StoreFullException. */
    @Override
    protected IdempotencyStore createFailingStore() {
        return full();
    }

    static InMemoryIdempotencyStore full() {
        InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().maxRecords(1).build();
        ClaimResult only = StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of("full", "only"), null,
                Duration.ofMinutes(5), Duration.ofHours(1)));
        assertThat(only).isInstanceOf(ClaimResult.Acquired.class);
        return store;
    }
}
