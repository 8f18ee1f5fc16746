package io.github.once.bench.store;

import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;

/**
 * The floor on Redis: the cheapest pair of commands that takes a key and records it done, with no lease owner, no
 * fencing token, no fingerprint, no result and no server-side clock. A new key is {@code SET key P NX PX lease}
 * then {@code SET key C XX PX retention}; a duplicate is the one {@code SET NX} that answers nil. Once's Redis store
 * is measured against it: a ratio, not a peer.
 */
final class FloorRedis implements RepositoryUnderTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String prefix;
    private final SetArgs claim = SetArgs.Builder.nx().px(LEASE.toMillis());
    private final SetArgs complete;

    FloorRedis(String redisUri, String namespace, Duration retention) {
        this.client = RedisClient.create(redisUri);
        this.connection = client.connect();
        this.redis = connection.sync();
        this.prefix = namespace + ":";
        this.complete = SetArgs.Builder.xx().px(retention.toMillis());
    }

    @Override
    public boolean claimAndComplete(String key) {
        String name = prefix + key;
        if (redis.set(name, "P", claim) == null) {
            return false;
        }
        if (!"OK".equals(redis.set(name, "C", complete))) {
            throw new IllegalStateException("the key " + name + " vanished between its two commands");
        }
        return true;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
