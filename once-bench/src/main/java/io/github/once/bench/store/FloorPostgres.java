package io.github.once.bench.store;

import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The floor on PostgreSQL: the cheapest pair of statements that takes a key and records it done, each in
 * auto-commit (its own commit): {@code INSERT ... ON CONFLICT DO NOTHING} of the key in progress, then
 * {@code UPDATE} to done; a duplicate is the one insert that inserts nothing. Both set an expiry by the database's
 * clock, as Redis's {@code PX} does, but there is no lease owner, no fencing token, no fingerprint and no result.
 * Once's JDBC store is measured against it: a ratio, not a peer.
 */
final class FloorPostgres implements RepositoryUnderTest {

    /** The floor's own table, created when missing; rows are deleted per namespace on close. */
    static final String TABLE = "once_bench_floor";
    private static final Duration LEASE = Duration.ofSeconds(30);

    private final HikariDataSource dataSource;
    private final String namespace;
    private final Duration retention;

    FloorPostgres(HikariDataSource dataSource, String namespace, Duration retention) {
        this.dataSource = dataSource;
        this.namespace = namespace;
        this.retention = retention;
        Rival.execute(dataSource, "CREATE TABLE IF NOT EXISTS " + TABLE + " (namespace VARCHAR(64) NOT NULL,"
                + " record_key VARCHAR(200) NOT NULL, state CHAR(1) NOT NULL, expires_at TIMESTAMPTZ NOT NULL,"
                + " PRIMARY KEY (namespace, record_key))");
    }

    @Override
    public boolean claimAndComplete(String key) {
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + TABLE
                    + " (namespace, record_key, state, expires_at)"
                    + " VALUES (?, ?, 'P', clock_timestamp() + ? * INTERVAL '1 millisecond') ON CONFLICT DO NOTHING")) {
                insert.setString(1, namespace);
                insert.setString(2, key);
                insert.setLong(3, LEASE.toMillis());
                if (insert.executeUpdate() == 0) {
                    return false;
                }
            }
            try (PreparedStatement update = c.prepareStatement("UPDATE " + TABLE + " SET state = 'C',"
                    + " expires_at = clock_timestamp() + ? * INTERVAL '1 millisecond'"
                    + " WHERE namespace = ? AND record_key = ?")) {
                update.setLong(1, retention.toMillis());
                update.setString(2, namespace);
                update.setString(3, key);
                if (update.executeUpdate() != 1) {
                    throw new IllegalStateException("the row of " + key + " vanished between its two statements");
                }
            }
            return true;
        } catch (SQLException e) {
            throw new IllegalStateException("floor statement failed for " + key, e);
        }
    }

    @Override
    public void close() {
        try {
            Rival.execute(dataSource, "DELETE FROM " + TABLE + " WHERE namespace = '" + namespace + "'");
        } finally {
            dataSource.close();
        }
    }
}
