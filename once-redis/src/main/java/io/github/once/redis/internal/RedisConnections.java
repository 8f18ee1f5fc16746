package io.github.once.redis.internal;

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
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one connection a store talks through (Lettuce connections are thread-safe and pipeline concurrent callers),
 * and whether it reaches a cluster. On a single Redis a batch is one multi-key script call per chunk; on a cluster
 * the keys of a batch live in different hash slots, so a batch is one single-key call per key, all pipelined
 * (every command written without waiting for earlier replies: still one round trip of latency).
 */
public final class RedisConnections implements AutoCloseable {

    private final RedisClusterAsyncCommands<byte[], byte[]> commands;
    private final boolean cluster;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final List<AutoCloseable> owned;
    private final String description;

    private RedisConnections(StatefulConnection<byte[], byte[]> connection,
            RedisClusterAsyncCommands<byte[], byte[]> commands, boolean cluster, List<AutoCloseable> owned,
            String description) {
        this.commands = commands;
        this.cluster = cluster;
        this.owned = owned;
        this.description = description;
    }

    public static RedisConnections openStandalone(RedisURI uri, ClientResources resources, SslOptions ssl, Duration timeout) {
        RedisClient client = resources == null ? RedisClient.create(uri) : RedisClient.create(resources, uri);
        ClientOptions.Builder options = ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build());
        if (ssl != null) {
            options.sslOptions(ssl);
        }
        client.setOptions(options.build());
        try {
            StatefulRedisConnection<byte[], byte[]> main = client.connect(ByteArrayCodec.INSTANCE);
            return new RedisConnections(main, main.async(), false, List.of(main, shutdown(client)), "redis " + redacted(uri));
        } catch (RuntimeException e) {
            client.shutdown(Duration.ZERO, timeout);
            throw new StoreUnavailableException("cannot connect to Redis at " + redacted(uri) + ": " + e, e);
        }
    }

    public static RedisConnections openCluster(List<RedisURI> seeds, ClientResources resources, SslOptions ssl,
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
            return new RedisConnections(main, main.async(), true, List.of(main, shutdown(client)),
                    "redis cluster " + seeds.stream().map(RedisConnections::redacted).toList());
        } catch (RuntimeException e) {
            client.shutdown(Duration.ZERO, timeout);
            throw new StoreUnavailableException("cannot connect to the Redis cluster at "
                    + seeds.stream().map(RedisConnections::redacted).toList() + ": " + e, e);
        }
    }

    /** A connection the caller owns (and closes). */
    public static RedisConnections borrowed(StatefulRedisConnection<byte[], byte[]> connection) {
        return new RedisConnections(connection, connection.async(), false, List.of(), "caller's redis connection");
    }

    public static RedisConnections borrowed(StatefulRedisClusterConnection<byte[], byte[]> connection) {
        return new RedisConnections(connection, connection.async(), true, List.of(), "caller's redis cluster connection");
    }

    /** Scripts, and for operators' reads SCAN and TIME (on a cluster SCAN walks every node). */
    public RedisClusterAsyncCommands<byte[], byte[]> commands() {
        return commands;
    }

    /** True on a cluster: keys of one batch may live on different nodes, so no script may take several. */
    public boolean cluster() {
        return cluster;
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
