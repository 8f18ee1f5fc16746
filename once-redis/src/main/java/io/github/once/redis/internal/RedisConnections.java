package io.github.once.redis.internal;

import io.github.once.StoreUnavailableException;
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
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one connection a store talks through (Lettuce connections are thread-safe and pipeline concurrent callers),
 * and whether it reaches a cluster. On a single Redis a batch is one multi-key script call per chunk; on a cluster
 * the keys of a batch live in different hash slots, so a batch is one single-key call per key, all pipelined
 * (every command written without waiting for earlier replies: still one round trip of latency).
 */
public final class RedisConnections implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RedisConnections.class);

    /** Opens the connection; null for a borrowed one. */
    private final Supplier<StatefulConnection<byte[], byte[]>> connector;
    private final boolean cluster;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The client, closed after the connection. */
    private final AutoCloseable client;
    private final String description;
    private volatile StatefulConnection<byte[], byte[]> connection;
    private volatile RedisClusterAsyncCommands<byte[], byte[]> commands;

    private RedisConnections(Supplier<StatefulConnection<byte[], byte[]>> connector,
            StatefulConnection<byte[], byte[]> connection, boolean cluster, AutoCloseable client, String description) {
        this.connector = connector;
        this.cluster = cluster;
        this.client = client;
        this.description = description;
        if (connection != null) {
            connected(connection);
        }
    }

    /**
     * A connection to one Redis, opened now if Redis answers and otherwise at the first call that needs it: a
     * store can be built while Redis is down. Once open, Lettuce reconnects it on its own.
     */
    public static RedisConnections openStandalone(RedisURI uri, ClientResources resources, SslOptions ssl, Duration timeout) {
        RedisClient client = resources == null ? RedisClient.create(uri) : RedisClient.create(resources, uri);
        ClientOptions.Builder options = ClientOptions.builder()
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build());
        if (ssl != null) {
            options.sslOptions(ssl);
        }
        client.setOptions(options.build());
        return opened(new RedisConnections(() -> client.connect(ByteArrayCodec.INSTANCE), null, false,
                () -> client.shutdown(Duration.ZERO, timeout), "redis " + redacted(uri)));
    }

    /** As {@link #openStandalone}, for a cluster: the topology is read when the connection opens. */
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
        return opened(new RedisConnections(() -> client.connect(ByteArrayCodec.INSTANCE), null, true,
                () -> client.shutdown(Duration.ZERO, timeout),
                "redis cluster " + seeds.stream().map(RedisConnections::redacted).toList()));
    }

    /** Tries to open the connection now; Redis being down is not an error yet (the first call says so). */
    private static RedisConnections opened(RedisConnections connections) {
        try {
            connections.commands();
        } catch (StoreUnavailableException e) {
            log.info("Once: {} does not answer yet; the store connects at its first call ({})", connections,
                    e.getCause() == null ? e.toString() : e.getCause().toString());
        }
        return connections;
    }

    /** A connection the caller owns (and closes). */
    public static RedisConnections borrowed(StatefulRedisConnection<byte[], byte[]> connection) {
        return new RedisConnections(null, connection, false, null, "caller's redis connection");
    }

    public static RedisConnections borrowed(StatefulRedisClusterConnection<byte[], byte[]> connection) {
        return new RedisConnections(null, connection, true, null, "caller's redis cluster connection");
    }

    /**
     * Scripts, and for operators' reads SCAN and TIME (on a cluster SCAN walks every node).
     *
     * @throws StoreUnavailableException when the connection is not open and cannot be opened within the timeout
     */
    public RedisClusterAsyncCommands<byte[], byte[]> commands() {
        RedisClusterAsyncCommands<byte[], byte[]> open = commands;
        return open != null ? open : connect();
    }

    /** Whether the connection was opened (Lettuce may be reconnecting it). */
    public boolean isOpen() {
        return commands != null;
    }

    /** One attempt at a time: callers that arrive meanwhile take its result rather than each trying again. */
    private synchronized RedisClusterAsyncCommands<byte[], byte[]> connect() {
        if (commands != null) {
            return commands;
        }
        if (closed.get()) {
            throw new StoreUnavailableException(description + " is closed");
        }
        try {
            connected(connector.get());
        } catch (RuntimeException e) {
            throw new StoreUnavailableException("cannot connect to " + description + ": " + e, e);
        }
        return commands;
    }

    private void connected(StatefulConnection<byte[], byte[]> opened) {
        connection = opened;
        commands = opened instanceof StatefulRedisClusterConnection<byte[], byte[]> c ? c.async()
                : ((StatefulRedisConnection<byte[], byte[]>) opened).async();
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
        synchronized (this) {
            if (connector != null) { // a borrowed connection is the caller's to close
                closeQuietly(connection);
                closeQuietly(client);
            }
        }
    }

    @Override
    public String toString() {
        return description;
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
