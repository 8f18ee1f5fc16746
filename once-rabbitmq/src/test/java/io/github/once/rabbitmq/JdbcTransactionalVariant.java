package io.github.once.rabbitmq;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.Idempotency;
import io.github.once.RecordState;
import io.github.once.OnceListener;
import io.github.once.jdbc.JdbcIdempotencyStore;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PostgreSQL in transactional mode: the handler's effect is a row in a business table, written on the
 * transaction's connection, so the effect and the record commit together. Effects are counted in that table,
 * through a connection of the test's own (never through a proxy the test may cut).
 */
final class JdbcTransactionalVariant implements StoreVariant {
    static final String DIRECT_URL = "jdbc:postgresql://127.0.0.1:5432/test";

    private final String url;
    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    final String table = "once_rmq_" + suffix;
    final String effects = "once_rmq_fx_" + suffix;
    private final HikariDataSource direct;
    /** Reads records through the test's own connections, which see committed rows only. */
    private final JdbcIdempotencyStore reader;
    private final Map<Idempotency, HikariDataSource> pools = new ConcurrentHashMap<>();

    JdbcTransactionalVariant() throws SQLException {
        this(DIRECT_URL);
    }

    /** @param url where the executors connect (perhaps through a fault proxy) */
    JdbcTransactionalVariant(String url) throws SQLException {
        this.url = url;
        // Set-up and checks only: a loaded machine may take more than a second to connect.
        this.direct = pool(DIRECT_URL, "once-rmq-direct", 10_000);
        try (Connection c = direct.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + effects + " (message_id VARCHAR(200) NOT NULL, token BIGINT NOT NULL)");
        }
        // Create the record table up front, directly, so executors behind a proxy need not.
        this.reader = JdbcIdempotencyStore.builder(direct).tableName(table).createTableIfMissing(true).build();
    }

    static HikariDataSource pool(String url, String name) {
        return pool(url, name, 1000);
    }

    static HikariDataSource pool(String url, String name, long connectionTimeoutMillis) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername("postgres");
        config.setPassword("");
        config.setMaximumPoolSize(6);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(connectionTimeoutMillis);
        config.setValidationTimeout(500);
        config.setInitializationFailTimeout(-1);
        config.setPoolName(name);
        return new HikariDataSource(config);
    }

    @Override
    public Idempotency executor(Duration lease) {
        return executor(lease, OnceListener.NONE);
    }

    @Override
    public Idempotency executor(Duration lease, OnceListener listener) {
        HikariDataSource ds = pool(url, "once-rmq-" + suffix + "-" + pools.size());
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds)
                .dialect(io.github.once.jdbc.JdbcDialect.POSTGRESQL)
                .tableName(table).queryTimeout(Duration.ofSeconds(2)).build();
        Idempotency executor = Idempotency.builder(store).transactional().config(StoreVariant.config(lease))
                .listener(listener).build();
        pools.put(executor, ds);
        return executor;
    }

    @Override
    public void kill(Idempotency executor) {
        // A dead process's connections die with it: its open transaction rolls back.
        HikariDataSource ds = pools.remove(executor);
        if (ds != null) {
            ds.close();
        }
    }

    @Override
    public void effect(String id, DeliveryContext context) throws SQLException {
        Connection c = context.resource(Connection.class);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + effects + " (message_id, token) VALUES (?, ?)")) {
            ps.setString(1, id);
            ps.setLong(2, context.fencingToken());
            ps.executeUpdate();
        }
    }

    /** Whether the record of {@code id} is completed and committed now. */
    boolean committed(String namespace, String id) {
        return reader.find(List.of(IdempotencyKey.of(namespace, id))).get(0).map(IdempotencyRecord::state)
                .orElse(null) == RecordState.COMPLETED;
    }

    @Override
    public int effects(String id) {
        return (int) count("SELECT count(*) FROM " + effects + " WHERE message_id = '" + id.replace("'", "''") + "'");
    }

    @Override
    public long totalEffects() {
        return count("SELECT count(*) FROM " + effects);
    }

    @Override
    public long distinctEffects() {
        return count("SELECT count(DISTINCT message_id) FROM " + effects);
    }

    private long count(String sql) {
        try (Connection c = direct.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() throws SQLException {
        pools.values().forEach(HikariDataSource::close);
        pools.clear();
        try (Connection c = direct.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + effects);
            st.execute("DROP TABLE IF EXISTS " + table);
        } finally {
            direct.close();
        }
    }
}
