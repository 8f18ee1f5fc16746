package io.github.once.redis;

import io.github.once.spi.IdempotencyStore;
import io.github.once.testkit.IdempotencyStoreContract;

import org.junit.jupiter.api.AfterEach;

/** The whole store contract against the shared single Redis on 127.0.0.1:6379. */
class RedisStoreContractTest extends IdempotencyStoreContract {

    private final String prefix = SharedRedis.randomPrefix();

    @Override
    protected IdempotencyStore createStore() {
        return RedisIdempotencyStore.builder()
                .uri(SharedRedis.URI)
                .clientResources(SharedRedis.RESOURCES)
                .keyPrefix(prefix)
                .build();
    }

    @AfterEach
    void removeKeys() {
        SharedRedis.deleteKeys(prefix);
    }
}
