package io.github.once.redis;

import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.StoreInspector;
import io.github.once.testkit.StoreCalls;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Bad settings fail at once with the setting's name and value; a connection passed in stays the caller's. */
class RedisStoreBuilderTest {

    @Test
    void prefixWithBracesOrSpacesIsRefused() {
        for (String bad : new String[] {"a{b", "x}", "with space", "tab\t", "caf\u00e9:", "p".repeat(65)}) {
            assertThatThrownBy(() -> RedisIdempotencyStore.builder().keyPrefix(bad))
                    .as("prefix %s", bad)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("keyPrefix")
                    .hasMessageContaining(bad);
        }
        assertThatThrownBy(() -> RedisIdempotencyStore.builder().keyPrefix(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
    }

    @Test
    void ordinaryPrefixesAreAcceptedAndStartTheKeys() {
        for (String good : new String[] {"", "once:", "app/orders|v2~", "p".repeat(64)}) {
            String namespace = "prefix-" + UUID.randomUUID().toString().substring(0, 8);
            IdempotencyKey key = IdempotencyKey.of(namespace, "1");
            try (RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(SharedRedis.URI)
                    .clientResources(SharedRedis.RESOURCES).keyPrefix(good).build()) {
                assertThat(store.keyPrefix()).isEqualTo(good);
                assertThat(StoreCalls.claim(store, new ClaimRequest(key, "fp", Duration.ofMinutes(1),
                        Duration.ofMinutes(1)))).isInstanceOf(ClaimResult.Acquired.class);
                StoreInspector inspector = store.inspector();
                assertThat(inspector.inspect(key).orElseThrow().storageKey()).as("the Redis key")
                        .startsWith(good).contains(namespace);
                assertThat(inspector.deleteNamespace(namespace, 10)).isEqualTo(1); // this key only
            }
        }
    }

    @Test
    void timeoutMustBePositive() {
        assertThatThrownBy(() -> RedisIdempotencyStore.builder().timeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout").hasMessageContaining("PT0S");
        assertThatThrownBy(() -> RedisIdempotencyStore.builder().timeout(Duration.ofNanos(10)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("timeout");
    }

    @Test
    void badUriIsRefused() {
        assertThatThrownBy(() -> RedisIdempotencyStore.builder().uri("http://127.0.0.1:6379"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uri")
                .hasMessageContaining("http://127.0.0.1:6379");
        assertThatThrownBy(() -> RedisIdempotencyStore.builder().clusterUris())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("clusterUris");
    }

    @Test
    void noRedisNamedIsRefused() {
        assertThatThrownBy(() -> RedisIdempotencyStore.builder().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("uri");
    }

    @Test
    void describesItselfWithoutThePassword() {
        // The shared Redis's default user has no password, so it accepts any.
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder()
                .uri("redis://:not-needed-here@127.0.0.1:6379")
                .clientResources(SharedRedis.RESOURCES).build()) {
            assertThat(store.toString()).contains("127.0.0.1:6379").doesNotContain("not-needed-here");
            assertThat(store.timeout()).isEqualTo(RedisIdempotencyStore.DEFAULT_TIMEOUT);
            assertThat(store.keyPrefix()).isEqualTo("once:");
        }
    }

    @Test
    void aConnectionPassedInIsNotClosedWithTheStore() {
        RedisClient client = RedisClient.create(SharedRedis.RESOURCES, SharedRedis.URI);
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE)) {
            String prefix = SharedRedis.randomPrefix();
            ClaimRequest request = new ClaimRequest(IdempotencyKey.of("borrowed", "1"), "fp", Duration.ofMinutes(1),
                    Duration.ofMinutes(1));
            try (RedisIdempotencyStore store = RedisIdempotencyStore.builder().connection(connection)
                    .keyPrefix(prefix).build()) {
                assertThat(StoreCalls.claim(store, request)).isInstanceOf(ClaimResult.Acquired.class);
                assertThat(store.claim(java.util.List.of(request))).singleElement()
                        .isInstanceOf(ClaimResult.Busy.class);
            }
            assertThat(connection.isOpen()).isTrue();
            SharedRedis.deleteKeys(prefix);
        } finally {
            client.shutdown();
        }
    }
}
