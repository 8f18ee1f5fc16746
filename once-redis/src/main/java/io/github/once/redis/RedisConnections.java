package io.github.once.redis;

import io.github.once.StoreUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The connections a store talks through. One shared connection serves single calls (Lettuce connections are
 * thread-safe and pipeline concurrent callers). Batches on a single Redis go through a second connection that
 * flushes only when told, so a whole batch leaves in one write. A cluster connection re-sends redirected commands
 * on its own and needs automatic flushing, so there batches are pipelined on the shared connection (every command
 * is written without waiting for earlier replies: still one round trip of latency).
 */
final class RedisConnections implements AutoCloseable {

    private final RedisScriptingAsyncCommands<byte[], byte[]> commands;
    private final RedisScriptingAsyncCommands<byte[], byte[]> batchCommands;
    private final StatefulConnection<byte[], byte[]> batchConnection; // null: flushed per command
    private final ReentrantLock batchWrite = new ReentrantLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<AutoCloseable> owned;
    private final String description;

    private RedisConnections(RedisScriptingAsyncCommands<byte[], byte[]> commands,
            StatefulConnection<byte[], byte[]> batchConnection,
            RedisScriptingAsyncCommands<byte[], byte[]> batchCommands, List<AutoCloseable> owned, String description) {
        this.commands = commands;
        this.batchConnection = batchConnection;
        this.batchCommands = batchCommands == null ? commands : batchCommands;
        this.owned = owned;
        this.description = description;
    }

    static RedisConnections openStandalone(RedisURI uri, ClientResources resources, SslOptions ssl, Duration timeout) {
        RedisClient client = resources == null ? RedisClient.create(uri) : RedisClient.create(resources, uri);
        ClientOptions.Builder options = ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build());
        if (ssl != null) {
            options.sslOptions(ssl);
        }
        client.setOptions(options.build());
        StatefulRedisConnection<byte[], byte[]> main = null;
        try {
            main = client.connect(ByteArrayCodec.INSTANCE);
            StatefulRedisConnection<byte[], byte[]> batch = client.connect(ByteArrayCodec.INSTANCE);
            batch.setAutoFlushCommands(false);
            return new RedisConnections(main.async(), batch, batch.async(), List.of(batch, main, shutdown(client)),
                    "redis " + redacted(uri));
        } catch (RuntimeException e) {
            closeQuietly(main);
            client.shutdown(Duration.ZERO, timeout);
            throw new StoreUnavailableException("cannot connect to Redis at " + redacted(uri) + ": " + e, e);
        }
    }

    static RedisConnections openCluster(List<RedisURI> seeds, ClientResources resources, SslOptions ssl,
            Duration timeout) {
        RedisClusterClient client = resources == null ? RedisClusterClient.create(seeds)
                : RedisClusterClient.create(resources, seeds);
        // Lettuce 7 refreshes the topology on every adaptive trigger (MOVED, ASK, reconnects, uncovered slots,
        // unknown nodes) by default, so fail-overs and slot moves are followed without more settings.
        ClusterClientOptions.Builder options = ClusterClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build());
        if (ssl != null) {
            options.sslOptions(ssl);
        }
        client.setOptions(options.build());
        try {
            StatefulRedisClusterConnection<byte[], byte[]> main = client.connect(ByteArrayCodec.INSTANCE);
            return new RedisConnections(main.async(), null, null, List.of(main, shutdown(client)),
                    "redis cluster " + seeds.stream().map(RedisConnections::redacted).toList());
        } catch (RuntimeException e) {
            client.shutdown(Duration.ZERO, timeout);
            throw new StoreUnavailableException("cannot connect to the Redis cluster at "
                    + seeds.stream().map(RedisConnections::redacted).toList() + ": " + e, e);
        }
    }

    /** A connection the caller owns (and closes); batches are pipelined on it without a private flush. */
    static RedisConnections borrowed(StatefulRedisConnection<byte[], byte[]> connection) {
        return new RedisConnections(connection.async(), null, null, List.of(), "caller's redis connection");
    }

    static RedisConnections borrowed(StatefulRedisClusterConnection<byte[], byte[]> connection) {
        return new RedisConnections(connection.async(), null, null, List.of(), "caller's redis cluster connection");
    }

    RedisScriptingAsyncCommands<byte[], byte[]> commands() {
        return commands;
    }

    /**
     * Queues a batch with {@code writer} and sends it. With a private batch connection the lock keeps concurrent
     * batches from interleaving their writes and flushes; the replies are awaited outside it.
     */
    void writeBatch(java.util.function.Consumer<RedisScriptingAsyncCommands<byte[], byte[]>> writer) {
        if (batchConnection == null) {
            writer.accept(batchCommands);
            return;
        }
        batchWrite.lock();
        try {
            writer.accept(batchCommands);
        } finally {
            try {
                batchConnection.flushCommands();
            } finally {
                batchWrite.unlock();
            }
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        for (AutoCloseable resource : owned) {
            closeQuietly(resource);
        }
    }

    @Override
    public String toString() {
        return description;
    }

    private static AutoCloseable shutdown(AbstractRedisClient client) {
        return client::shutdown;
    }

    private static void closeQuietly(AutoCloseable resource) {
        if (resource == null) {
            return;
        }
        try {
            resource.close();
        } catch (Exception e) {
            // Closing is best effort: the store is going away either way.
        }
    }

    /** The URI without its credentials, for messages and logs. */
    static String redacted(RedisURI uri) {
        return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort() + (uri.getDatabase() == 0 ? "" : "/" + uri.getDatabase());
    }
}
