package io.github.once.redis;

import io.github.once.spi.IdempotencyStore;
import io.github.once.testkit.IdempotencyStoreContract;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

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

    /** A store whose connection was closed under it: every call fails with StoreUnavailableException. */
    @Override
    protected IdempotencyStore createFailingStore() {
        RedisClient client = RedisClient.create(SharedRedis.RESOURCES, SharedRedis.URI);
        StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
        RedisIdempotencyStore store = RedisIdempotencyStore.builder().connection(connection).keyPrefix(prefix).build();
        connection.close();
        client.shutdown();
        return store;
    }

    @AfterEach
    void removeKeys() {
        SharedRedis.deleteKeys(prefix);
    }
}
