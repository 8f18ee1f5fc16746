package io.github.once.chaos;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The effects table: one row per effect, no unique constraint, so a repeated effect is a second row. Each row
 * names the worker that made it and when, on the machine's clock (the faults are timed on the same clock).
 */
final class EffectLedger {

    /** One effect as recorded. */
    record Effect(String messageId, String worker, long atMillis) {
    }

    private EffectLedger() {
    }

    static void create(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS " + table + " (message_id VARCHAR(200) NOT NULL, "
                    + "worker VARCHAR(40) NOT NULL, at_ms BIGINT NOT NULL, token BIGINT NOT NULL)");
        }
    }

    static void record(Connection c, String table, String messageId, String worker, long token) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + table + " (message_id, worker, at_ms, token) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, messageId);
            ps.setString(2, worker);
            ps.setLong(3, System.currentTimeMillis());
            ps.setLong(4, token);
            ps.executeUpdate();
        }
    }

    static List<Effect> readAll(Connection c, String table) throws SQLException {
        List<Effect> effects = new ArrayList<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT message_id, worker, at_ms FROM " + table + " ORDER BY at_ms")) {
            while (rs.next()) {
                effects.add(new Effect(rs.getString(1), rs.getString(2), rs.getLong(3)));
            }
        }
        return effects;
    }

    static long distinctIds(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(DISTINCT message_id) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    static void drop(Connection c, String table) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
        }
    }
}
