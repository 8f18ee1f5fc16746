package io.github.once.cli.demo;

import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.cli.CliException;
import io.github.once.cli.SqlFailures;
import io.github.once.cli.UrlDataSource;
import io.github.once.jdbc.JdbcDialect;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.spi.StoreInspector;
import io.lettuce.core.api.StatefulRedisConnection;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/** The Once rows of the matrix: the adapter with each available store, transactional JDBC included. */
final class OnceRows {
    /** Demo records go to a table and a key prefix of their own, and are deleted after the run. */
    static final String DEMO_TABLE = "once_demo_record";
    static final String DEMO_PREFIX = "once-demo:";

    private OnceRows() {
    }

    /** A database the demo reached, with its dialect. */
    record JdbcTarget(UrlDataSource dataSource, JdbcDialect dialect) {
    }

    /** Connects once to learn the dialect; a bad URL or an unreachable database fails here. */
    static JdbcTarget probe(String url) {
        UrlDataSource ds = new UrlDataSource(url);
        try (Connection c = ds.getConnection()) {
            return new JdbcTarget(ds, JdbcDialect.detect(c));
        } catch (SQLException e) {
            throw SqlFailures.connecting(UrlDataSource.redacted(url), e);
        } catch (IllegalArgumentException e) {
            throw CliException.usage("--jdbc-url: " + e.getMessage());
        }
    }

    static void add(DemoSetup setup, StatefulRedisConnection<String, String> redis, String redisUri, JdbcTarget jdbc) {
        RetryPolicy retry = OnceStyle.retryFor(setup.embedded());
        if (setup.embedded()) {
            setup.addNote("Once retries by requeueing to the queue's tail here (no delay queues on the embedded "
                    + "broker): failures are still bounded by 3 attempts, then dead-lettered by a confirmed publish; "
                    + "a busy key is retried as fast as the queue turns over");
        }
        setup.addStyle(OnceStyle.withStore("in-memory", InMemoryIdempotencyStore.builder().build(), retry));
        String h2 = "jdbc:h2:mem:once-demo-" + setup.runId() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=5000";
        addJdbc(setup, probe(h2), "h2", retry);
        if (redis != null) {
            RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(redisUri).keyPrefix(DEMO_PREFIX)
                    .timeout(Duration.ofSeconds(2)).build();
            setup.addStyle(OnceStyle.withStore("redis", store, retry));
            setup.addResource(() -> {
                try (store) {
                    deleteRecords(store.inspector(), setup.namespaces());
                }
            });
        }
        if (jdbc != null) {
            addJdbc(setup, jdbc, null, retry);
        }
    }

    private static void addJdbc(DemoSetup setup, JdbcTarget target, String name, RetryPolicy retry) {
        UrlDataSource ds = target.dataSource();
        JdbcDialect dialect = target.dialect();
        String where = "the demo database";
        String label = name != null ? name : dialect.name().toLowerCase(Locale.ROOT);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).dialect(dialect).tableName(DEMO_TABLE)
                .createTableIfMissing(true).queryTimeout(Duration.ofSeconds(5)).build();
        JdbcEffects effects;
        try {
            effects = new JdbcEffects(ds, setup.runId());
        } catch (SQLException e) {
            throw SqlFailures.connecting(where, e);
        }
        setup.addStyle(OnceStyle.withStore(label, store, retry));
        setup.addStyle(OnceStyle.transactional(label,
                config -> Idempotency.builder(store).transactional().config(config).build(),
                cellId -> effects.sink(), retry, null));
        setup.addResource(() -> {
            effects.close();
            try (store) {
                deleteRecords(store.inspector(), setup.namespaces());
            }
            if (name != null && dialect == JdbcDialect.H2) {
                try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                    s.execute("SHUTDOWN");
                }
            }
        });
    }

    /** Deletes the run's records through the store's own inspector, which alone knows its format. */
    private static void deleteRecords(StoreInspector inspector, List<String> namespaces) {
        for (String namespace : namespaces) {
            while (inspector.deleteNamespace(namespace, 1_000) == 1_000) {
                // the next batch
            }
        }
    }
}
