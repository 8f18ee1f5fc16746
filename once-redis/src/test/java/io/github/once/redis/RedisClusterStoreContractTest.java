package io.github.once.redis;

import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.StoreInspector;
import io.github.once.testkit.IdempotencyStoreContract;
import io.github.once.testkit.StoreCalls;
import io.github.once.testkit.StoreInspectorContract;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The whole store contract against a private Redis Cluster of three masters. Keys of one test spread over all
 * three (checked below), so every operation must stay on one key to pass.
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

    /** A store whose cluster connection was closed under it: every call fails with StoreUnavailableException. */
    @Override
    protected IdempotencyStore createFailingStore() {
        RedisClusterClient client = RedisClusterClient.create(SharedRedis.RESOURCES,
                Arrays.stream(cluster.uris()).map(RedisURI::create).toList());
        StatefulRedisClusterConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
        RedisIdempotencyStore store = RedisIdempotencyStore.builder().clusterConnection(connection).build();
        connection.close();
        client.shutdown();
        return store;
    }

    private List<ClaimRequest> requests(int n) {
        List<ClaimRequest> requests = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            requests.add(new ClaimRequest(IdempotencyKey.of(namespace, "spread-" + i), "fp", Duration.ofMinutes(1),
                    Duration.ofMinutes(5)));
        }
        return requests;
    }

    @Test
    void oneBatchSpreadsOverEveryMaster() {
        List<ClaimResult> results = store.claim(requests(60));

        assertThat(results).hasSize(60).allMatch(r -> r instanceof ClaimResult.Acquired);
        for (RedisServer node : cluster.nodes()) {
            String keys = node.cli("--scan", "--pattern", "once:{" + namespace + ":*");
            assertThat(keys.lines().count()).as("records on node %d", node.port()).isPositive();
        }
    }

    @Test
    void nodesThatLostTheirScriptsLoadThemAgain() {
        for (RedisServer node : cluster.nodes()) {
            assertThat(node.cli("script", "flush")).contains("OK");
        }

        assertThat(store.claim(requests(30))).allMatch(r -> r instanceof ClaimResult.Acquired);
        assertThat(StoreCalls.claim(store, requests(31).get(30))).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(StoreCalls.find(store, requests(1).get(0).key())).isPresent();
    }

    /** The inspector contract on the same cluster: its SCAN walks every master. */
    @Nested
    class Inspector extends StoreInspectorContract {
        @Override
        protected IdempotencyStore createStore() {
            return RedisClusterStoreContractTest.this.createStore();
        }

        @Override
        protected StoreInspector inspectorOf(IdempotencyStore store) {
            return ((RedisIdempotencyStore) store).inspector();
        }
    }
}
