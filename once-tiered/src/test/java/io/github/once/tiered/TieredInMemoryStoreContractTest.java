package io.github.once.tiered;

import io.github.once.IdempotencyKey;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;
import io.github.once.testkit.IdempotencyStoreContract;
import io.github.once.testkit.StoreCalls;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The tiered store, an in-memory front over an in-memory store of record, passes the whole contract. */
class TieredInMemoryStoreContractTest extends IdempotencyStoreContract {
    @Override
    protected IdempotencyStore createStore() {
        return TieredIdempotencyStore.builder(InMemoryIdempotencyStore.builder().build(),
                InMemoryIdempotencyStore.builder().build()).build();
    }

    /** A store of record that is full: every new key is refused with StoreFullException. */
    @Override
    protected IdempotencyStore createFailingStore() {
        InMemoryIdempotencyStore full = InMemoryIdempotencyStore.builder().maxRecords(1).build();
        ClaimResult only = StoreCalls.claim(full, new ClaimRequest(IdempotencyKey.of("full", "only"), null,
                Duration.ofMinutes(5), Duration.ofHours(1)));
        assertThat(only).isInstanceOf(ClaimResult.Acquired.class);
        return TieredIdempotencyStore.builder(InMemoryIdempotencyStore.builder().build(), full).build();
    }
}
