package io.github.once.chaos;

import io.github.once.outbox.Outbox;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The outbox-tx mode's producer-side tables in the private PostgreSQL: the business rows (one per committed
 * transaction, the truth the checker compares the effects with) and the outbox the relays publish from.
 */
final class OutboxLedger {

    private final String business;
    private final String outbox;

    OutboxLedger(String effectsTable) {
        this.business = effectsTable + "_orders";
        this.outbox = effectsTable + "_outbox";
    }

    String business() {
        return business;
    }

    String outbox() {
        return outbox;
    }

    void create(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + business + " (id VARCHAR(200) PRIMARY KEY)");
        }
        Outbox.createTable(c, outbox);
    }

    /** The ids of the committed business rows. */
    Set<String> committed(Connection c) throws SQLException {
        Set<String> ids = new LinkedHashSet<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT id FROM " + business)) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        }
        return ids;
    }

    /** Committed business rows, and outbox rows not yet published (pending, or in a relay's hands). */
    long[] committedAndUnsent(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT (SELECT count(*) FROM " + business + "), (SELECT count(*) FROM "
                     + outbox + " WHERE state = 'PENDING')")) {
            rs.next();
            return new long[] {rs.getLong(1), rs.getLong(2)};
        }
    }

    /** Rows the relays gave up on, by message id, with their last error: parked, never dropped. */
    Map<String, String> parked(Connection c) throws SQLException {
        Map<String, String> parked = new LinkedHashMap<>();
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT message_id, last_error FROM " + outbox + " WHERE state = 'PARKED'")) {
            while (rs.next()) {
                parked.put(rs.getString(1), "parked by the relay: " + rs.getString(2));
            }
        }
        return parked;
    }

    void drop(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + business);
            st.execute("DROP TABLE IF EXISTS " + outbox);
        }
    }
}
