package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.OnceListener;
import io.github.once.StoreUnavailableException;
import io.github.once.redis.RedisIdempotencyStore;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import static org.awaitility.Awaitility.await;

/** Redis records (one store connection per executor, as separate processes would have); effects in a map. */
final class RedisVariant extends LedgerVariant {
    private final String uri;
    private final String prefix = "once-test-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final Map<Idempotency, RedisIdempotencyStore> stores = new ConcurrentHashMap<>();
    private final OnceListener listener;

    RedisVariant(String uri) {
        this(uri, OnceListener.NONE);
    }

    RedisVariant(String uri, OnceListener listener) {
        this.uri = uri;
        this.listener = listener;
    }

    @Override
    public Idempotency executor(Duration lease) {
        return executor(lease, listener);
    }

    @Override
    public Idempotency executor(Duration lease, OnceListener listener) {
        RedisIdempotencyStore.Builder builder = RedisIdempotencyStore.builder()
                .uri(uri).keyPrefix(prefix).timeout(Duration.ofMillis(500));
        // The short timeout is for the store's calls; on a loaded machine the connection's handshake may take
        // longer, so the build is tried again while it times out (the server is up whenever an executor is made).
        RedisIdempotencyStore store = await("a store connection").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).ignoreExceptionsInstanceOf(StoreUnavailableException.class)
                .until(builder::build, built -> true);
        Idempotency executor = Idempotency.builder(store).config(StoreVariant.config(lease))
                .listener(listener).build();
        stores.put(executor, store);
        return executor;
    }

    @Override
    public void kill(Idempotency executor) {
        executor.close();
        RedisIdempotencyStore store = stores.remove(executor);
        if (store != null) {
            store.close();
        }
    }

    @Override
    public void close() {
        stores.values().forEach(RedisIdempotencyStore::close);
        stores.clear();
    }
}
