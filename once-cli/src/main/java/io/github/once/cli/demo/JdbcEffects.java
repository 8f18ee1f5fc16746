package io.github.once.cli.demo;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The effect of the transactional rows: a row in {@code once_demo_effect}, written on the transaction's own
 * connection so that it commits, or rolls back, with the idempotency record.
 */
final class JdbcEffects implements AutoCloseable {
    static final String TABLE = "once_demo_effect";

    private final DataSource dataSource;
    private final String runId;

    JdbcEffects(DataSource dataSource, String runId) throws SQLException {
        this.dataSource = dataSource;
        this.runId = runId;
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS " + TABLE + " (order_id VARCHAR(200) NOT NULL)");
        }
    }

    EffectSink sink() {
        return new EffectSink() {
            @Override
            public void apply(String orderId, Object transaction) throws SQLException {
                if (!(transaction instanceof Connection c)) {
                    throw new IllegalStateException("a transactional effect needs the transaction's connection");
                }
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLE + " (order_id) VALUES (?)")) {
                    ps.setString(1, orderId);
                    ps.executeUpdate();
                }
            }

            @Override
            public int count(String orderId) {
                try (Connection c = dataSource.getConnection();
                        PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM " + TABLE
                                + " WHERE order_id = ?")) {
                    ps.setString(1, orderId);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        return rs.getInt(1);
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException("cannot count effects: " + e.getMessage(), e);
                }
            }
        };
    }

    /** Deletes this run's effect rows (order ids start with the run id). */
    @Override
    public void close() throws SQLException {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("DELETE FROM " + TABLE + " WHERE order_id LIKE ?")) {
            ps.setString(1, runId + ".%");
            ps.executeUpdate();
        }
    }
}
