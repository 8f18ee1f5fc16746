package io.github.once.redis;

import io.github.once.spi.IdempotencyStore;
import io.github.once.testkit.IdempotencyStoreContract;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The whole store contract against a private Redis Cluster of three masters. Keys of one test spread over all
 * three (checked by {@link RedisClusterTest}), so every operation must stay on one key to pass.
 */
class RedisClusterStoreContractTest extends IdempotencyStoreContract {

    private static RedisClusterNodes cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisClusterNodes.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Override
    protected IdempotencyStore createStore() {
        return RedisIdempotencyStore.builder()
                .clusterUris(cluster.uris())
                .clientResources(SharedRedis.RESOURCES)
                .build();
    }
}
