package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.IdempotentExecutor;
import io.github.once.OnceListener;
import io.github.once.redis.RedisIdempotencyStore;

import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/** Redis records (one store connection per executor, as separate processes would have); effects in a map. */
final class RedisVariant extends LedgerVariant {
    private final String uri;
    private final String prefix = "once-test-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final Map<IdempotentExecutor, RedisIdempotencyStore> stores = new ConcurrentHashMap<>();
    private final OnceListener listener;

    RedisVariant(String uri) {
        this(uri, OnceListener.NONE);
    }

    RedisVariant(String uri, OnceListener listener) {
        this.uri = uri;
        this.listener = listener;
    }

    @Override
    public IdempotentExecutor executor(Duration lease) {
        RedisIdempotencyStore store = RedisIdempotencyStore.builder()
                .uri(uri).keyPrefix(prefix).timeout(Duration.ofMillis(500)).build();
        IdempotentExecutor executor = Idempotency.builder(store).config(StoreVariant.config(lease))
                .listener(listener).build();
        stores.put(executor, store);
        return executor;
    }

    @Override
    public void kill(IdempotentExecutor executor) {
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
