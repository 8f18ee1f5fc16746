package io.github.once.bench.e2e;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

import javax.sql.DataSource;

/**
 * The effect the JDBC variants write per delivery, guarded or not: one row in a benchmark table of its own, so
 * that a transactional consumer is compared with unguarded consumers doing the same database work.
 */
final class EffectRows {
    static final String TABLE = "once_bench_effect";
    private static final String INSERT = "INSERT INTO " + TABLE + " (namespace, message_id, body_bytes) VALUES (?, ?, ?)";

    private EffectRows() {
    }

    /** Creates the table when missing. */
    static void create(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (namespace TEXT NOT NULL, message_id TEXT NOT NULL, "
                    + "body_bytes INT NOT NULL, written_at TIMESTAMPTZ NOT NULL DEFAULT now())");
        }
    }

    /** The row of one delivery, on {@code connection} (in its transaction, or auto-committed). */
    static void insert(Connection connection, String namespace, String messageId, int bodyBytes) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(INSERT)) {
            ps.setString(1, namespace);
            ps.setString(2, messageId);
            ps.setInt(3, bodyBytes);
            ps.executeUpdate();
        }
    }

    /** Deletes a run's rows. */
    static void delete(DataSource dataSource, String namespace) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("DELETE FROM " + TABLE + " WHERE namespace = ?")) {
            c.setAutoCommit(true);
            ps.setString(1, namespace);
            ps.executeUpdate();
        }
    }
}
