package io.github.once.redis;

import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.StoreInspector;
import io.github.once.testkit.StoreCalls;
import io.github.once.testkit.StoreInspectorContract;

import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The inspector contract against the shared single Redis, and what is particular to Redis. */
class RedisStoreInspectorTest extends StoreInspectorContract {

    private final String prefix = SharedRedis.randomPrefix();

    @Override
    protected IdempotencyStore createStore() {
        return RedisIdempotencyStore.builder()
                .uri(SharedRedis.URI)
                .clientResources(SharedRedis.RESOURCES)
                .keyPrefix(prefix)
                .build();
    }

    @Override
    protected StoreInspector inspectorOf(IdempotencyStore store) {
        return ((RedisIdempotencyStore) store).inspector();
    }

    @AfterEach
    void removeKeys() {
        SharedRedis.deleteKeys(prefix);
    }

    @Test
    void inspectNamesTheRedisKey() {
        IdempotencyKey key = IdempotencyKey.of(namespace, "order-1");
        assertThat(StoreCalls.claim(store, new ClaimRequest(key, null, Duration.ofMinutes(1), Duration.ofMinutes(5))))
                .isInstanceOf(ClaimResult.Acquired.class);

        assertThat(inspector.inspect(key).orElseThrow().storageKey()).isEqualTo(prefix + "{" + namespace + ":order-1}");
    }

    @Test
    void aPrefixWithGlobCharactersCountsOnlyItsOwnKeys() {
        // Unescaped, the first prefix's pattern would match the second's keys too.
        String globby = prefix + "a*?[b]\\";
        String plain = prefix + "axyb\\";
        try (RedisIdempotencyStore a = store(globby); RedisIdempotencyStore b = store(plain)) {
            IdempotencyKey key = IdempotencyKey.of(namespace, "k");
            StoreCalls.claim(a, new ClaimRequest(key, null, Duration.ofMinutes(1), Duration.ofMinutes(5)));
            StoreCalls.claim(b, new ClaimRequest(key, null, Duration.ofMinutes(1), Duration.ofMinutes(5)));
            StoreCalls.claim(b, new ClaimRequest(IdempotencyKey.of(namespace, "k2"), null, Duration.ofMinutes(1),
                    Duration.ofMinutes(5)));

            StoreInspector.Counts counts = a.inspector().count(null);
            assertThat(counts.inProgress()).isEqualTo(1);
            assertThat(a.inspector().oldestInProgress(namespace, 5)).singleElement()
                    .satisfies(r -> assertThat(r.standing()).isEqualTo(StoreInspector.Standing.IN_PROGRESS));
        }
    }

    private static RedisIdempotencyStore store(String keyPrefix) {
        return RedisIdempotencyStore.builder().uri(SharedRedis.URI).clientResources(SharedRedis.RESOURCES)
                .keyPrefix(keyPrefix).build();
    }
}
