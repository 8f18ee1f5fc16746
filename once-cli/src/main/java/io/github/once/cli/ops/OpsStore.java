package io.github.once.cli.ops;

import io.github.once.IdempotencyKey;
import io.github.once.OnceException;
import io.github.once.StoreMisconfiguredException;
import io.github.once.cli.CliException;
import io.github.once.cli.ServiceUris;
import io.github.once.cli.SqlFailures;
import io.github.once.cli.UrlDataSource;
import io.github.once.jdbc.JdbcDialect;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.spi.StoreInspector;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One store opened for the operating commands. Everything they read or delete goes through the store's own
 * {@link StoreInspector}: this class only opens the store, names it, and turns its failures into one-line
 * messages with an exit status.
 */
final class OpsStore implements AutoCloseable {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final StoreInspector inspector;
    private final String kind;
    private final String where;
    private final Runnable closer;

    private OpsStore(StoreInspector inspector, String kind, String where, Runnable closer) {
        this.inspector = inspector;
        this.kind = kind;
        this.where = where;
        this.closer = closer;
    }

    static OpsStore redis(String uri, String prefix) {
        RedisURI parsed = ServiceUris.redis(uri);
        String host = "Redis at " + parsed.getHost() + ":" + parsed.getPort();
        RedisClient client = RedisClient.create();
        StatefulRedisConnection<byte[], byte[]> connection;
        try {
            connection = client.connect(ByteArrayCodec.INSTANCE, parsed);
            connection.sync().ping();
        } catch (RuntimeException e) {
            client.shutdown(0, 1, TimeUnit.SECONDS);
            throw CliException.unreachable("cannot reach " + host + " (" + rootMessage(e) + ")", e);
        }
        Runnable closer = () -> {
            try {
                connection.close();
            } finally {
                client.shutdown(0, 1, TimeUnit.SECONDS);
            }
        };
        try {
            RedisIdempotencyStore store = RedisIdempotencyStore.builder().connection(connection).keyPrefix(prefix)
                    .timeout(TIMEOUT).build();
            return new OpsStore(store.inspector(), "Redis", host + ", key prefix '" + prefix + "'", closer);
        } catch (IllegalArgumentException e) {
            closer.run();
            throw CliException.usage(e.getMessage().replace("keyPrefix", "--key-prefix"));
        }
    }

    static OpsStore jdbc(String url, String table) {
        UrlDataSource dataSource = new UrlDataSource(url);
        String host = UrlDataSource.redacted(url);
        JdbcDialect dialect;
        try (Connection c = dataSource.getConnection()) {
            dialect = JdbcDialect.detect(c);
        } catch (SQLException e) {
            throw SqlFailures.connecting(host, e);
        } catch (IllegalArgumentException e) {
            throw CliException.usage(e.getMessage());
        }
        JdbcIdempotencyStore records = JdbcIdempotencyStore.builder(dataSource).dialect(dialect).tableName(table)
                .queryTimeout(TIMEOUT).build();
        OpsStore store = new OpsStore(records.inspector(), "the database", host + ", table " + table, () -> { });
        try {
            records.verify();
        } catch (StoreMisconfiguredException e) {
            throw CliException.missingSchema("no Once records table '" + table + "' that can be read in " + host
                    + ", or name yours with --table. " + e.getMessage());
        } catch (OnceException e) {
            throw store.failure("cannot read from", e);
        }
        return store;
    }

    /** Where the records are, for messages (never with a password). */
    String describe() {
        return where;
    }

    /** What holds the records, as a sentence names it ("Redis", "the database"). */
    String kind() {
        return kind;
    }

    boolean tellsReleasedFromLapsed() {
        return inspector.tellsReleasedFromLapsed();
    }

    boolean expiresRecordsItself() {
        return inspector.expiresRecordsItself();
    }

    Optional<StoreInspector.Inspected> inspect(IdempotencyKey key) {
        return call("cannot read from", () -> inspector.inspect(key));
    }

    StoreInspector.Counts count(String namespace) {
        return call("cannot read from", () -> inspector.count(namespace));
    }

    List<StoreInspector.Summary> oldestInProgress(String namespace, int limit) {
        return call("cannot read from", () -> inspector.oldestInProgress(namespace, limit));
    }

    int purgeExpired(String namespace, int maxRecords) {
        return call("purge failed on", () -> inspector.purgeExpired(namespace, maxRecords));
    }

    int deleteNamespace(String namespace, int maxRecords) {
        return call("reset failed on", () -> inspector.deleteNamespace(namespace, maxRecords));
    }

    private <T> T call(String failing, Supplier<T> step) {
        try {
            return step.get();
        } catch (OnceException e) {
            throw failure(failing, e);
        }
    }

    private CliException failure(String failing, OnceException e) {
        return CliException.unreachable(failing + " " + where + " (" + rootMessage(e) + ")", e);
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
    }

    @Override
    public void close() {
        closer.run();
    }
}
