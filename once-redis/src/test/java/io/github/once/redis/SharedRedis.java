package io.github.once.redis;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;

import java.util.UUID;

/**
 * The shared Redis on 127.0.0.1:6379 that the project's tests use. Tests keep to a random key prefix of their own
 * and remove their keys afterwards; they never reconfigure this server.
 */
final class SharedRedis {

    static final String URI = "redis://127.0.0.1:6379";

    /** Lettuce threads shared by the stores of a test run, so each store does not start its own. */
    static final ClientResources RESOURCES = DefaultClientResources.create();

    private SharedRedis() {
    }

    static String randomPrefix() {
        return "once-test-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    private static StatefulRedisConnection<String, String> cleaner;

    /** Deletes every key under {@code prefix} on the shared Redis (bounded SCAN batches). */
    static synchronized void deleteKeys(String prefix) {
        if (cleaner == null || !cleaner.isOpen()) {
            // Kept for the whole test run; the forked test JVM ends with it.
            cleaner = RedisClient.create(RESOURCES, URI).connect();
        }
        RedisCommands<String, String> redis = cleaner.sync();
        ScanCursor cursor = ScanCursor.INITIAL;
        ScanArgs args = ScanArgs.Builder.matches(prefix + "*").limit(1000);
        do {
            KeyScanCursor<String> page = redis.scan(cursor, args);
            if (!page.getKeys().isEmpty()) {
                redis.unlink(page.getKeys().toArray(String[]::new));
            }
            cursor = page;
        } while (!cursor.isFinished());
    }
}
