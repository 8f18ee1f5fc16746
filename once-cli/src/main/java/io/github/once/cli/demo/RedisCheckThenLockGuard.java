package io.github.once.cli.demo;

import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** The seed's check-then-lock on a real Redis: the same keys and commands, each its own round trip. */
final class RedisCheckThenLockGuard implements CheckThenLockGuard {
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String prefix;
    private final Set<String> written = ConcurrentHashMap.newKeySet();

    RedisCheckThenLockGuard(StatefulRedisConnection<String, String> connection, String prefix) {
        this.connection = connection;
        this.redis = connection.sync();
        this.prefix = prefix;
    }

    @Override
    public boolean isProcessed(String id) {
        return redis.exists(prefix + id) > 0;
    }

    @Override
    public boolean acquireLock(String id) {
        String key = prefix + id + ":lock";
        written.add(key);
        return "OK".equals(redis.set(key, "1", SetArgs.Builder.nx().ex(LOCK_SECONDS)));
    }

    @Override
    public void releaseLock(String id) {
        redis.del(prefix + id + ":lock");
    }

    @Override
    public void markAsProcessed(String id, String result) {
        String key = prefix + id;
        written.add(key);
        redis.setex(key, PROCESSED_SECONDS, "{\"processed_at\":" + System.currentTimeMillis() / 1000
                + ",\"result\":" + result + "}");
        releaseLock(id);
    }

    /** Removes the demo's keys, which the seed would keep for 24 h. */
    @Override
    public void close() {
        try {
            if (!written.isEmpty()) {
                redis.del(written.toArray(new String[0]));
            }
        } finally {
            connection.close();
        }
    }
}
