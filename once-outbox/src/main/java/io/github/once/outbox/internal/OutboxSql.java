package io.github.once.outbox.internal;

import io.github.once.jdbc.JdbcDialect;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.StringJoiner;
import java.util.regex.Pattern;

/**
 * Every statement the outbox runs, for one dialect and one table. Times come from the database clock; the client
 * passes only durations, in microseconds, so relays on machines with skewed clocks still agree on leases.
 */
public final class OutboxSql {

    private static final Pattern TABLE_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
    /** Columns a claim reads, in this order. */
    private static final String CLAIMED = "id, message_id, exchange_name, routing_key, properties, body, aggregate_key,"
            + " attempts, created_at";

    public final JdbcDialect dialect;
    public final String table;
    public final String insert;
    final String candidates;
    final String retry;
    final String park;
    final String giveBack;
    final String purge;

    public OutboxSql(JdbcDialect dialect, String table) {
        this.dialect = dialect;
        this.table = checkTableName(table);
        String now = now();
        insert = "INSERT INTO " + table + " (message_id, exchange_name, routing_key, properties, body, aggregate_key,"
                + " state, attempts, available_at, created_at) VALUES (?, ?, ?, ?, ?, ?, 'PENDING', 0, " + now + ", "
                + now + ")";
        // Pending, due, and not under a live lease. SKIP LOCKED: rows another relay is claiming right now are
        // passed over instead of waited for; once that claim commits, its lease keeps them out.
        candidates = "SELECT " + CLAIMED + ", " + now + " AS db_now FROM " + table
                + " WHERE state = 'PENDING' AND available_at <= " + now
                + " AND (lease_until IS NULL OR lease_until <= " + now + ")"
                + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED";
        String ownedPending = " WHERE id = ? AND lease_owner = ? AND state = 'PENDING'";
        String clearLease = " lease_owner = NULL, lease_until = NULL";
        retry = "UPDATE " + table + " SET attempts = attempts + 1, available_at = " + plusMicros() + ","
                + " last_error = ?," + clearLease + ownedPending;
        park = "UPDATE " + table + " SET attempts = attempts + 1, state = 'PARKED', last_error = ?," + clearLease
                + ownedPending;
        giveBack = "UPDATE " + table + " SET available_at = " + plusMicros() + ", last_error = COALESCE(?, last_error),"
                + clearLease + ownedPending;
        purge = switch (dialect) {
            // No DELETE ... LIMIT in PostgreSQL: a bounded batch of ids, skipping rows someone else has locked.
            case POSTGRESQL -> "DELETE FROM " + table + " WHERE id IN (SELECT id FROM " + table
                    + " WHERE state = 'SENT' AND sent_at <= " + plusMicros() + " ORDER BY sent_at LIMIT ?"
                    + " FOR UPDATE SKIP LOCKED)";
            case MARIADB -> "DELETE FROM " + table + " WHERE state = 'SENT' AND sent_at <= " + plusMicros()
                    + " ORDER BY sent_at LIMIT ?";
            case H2 -> "DELETE FROM " + table + " WHERE state = 'SENT' AND sent_at <= " + plusMicros()
                    + " FETCH FIRST ? ROWS ONLY";
        };
    }

    public static String checkTableName(String table) {
        if (table == null || !TABLE_NAME.matcher(table).matches()) {
            throw new IllegalArgumentException("tableName must be a plain SQL identifier (letters, digits, _; at most"
                    + " 63 characters), but was '" + table + "'");
        }
        return table;
    }

    /** The database's current time. */
    String now() {
        return switch (dialect) {
            case POSTGRESQL -> "clock_timestamp()";
            case MARIADB -> "UTC_TIMESTAMP(6)";
            case H2 -> "CURRENT_TIMESTAMP";
        };
    }

    /** The database's current time plus one parameter, in microseconds. */
    String plusMicros() {
        return switch (dialect) {
            case POSTGRESQL -> "clock_timestamp() + ? * INTERVAL '1 microsecond'";
            case MARIADB -> "UTC_TIMESTAMP(6) + INTERVAL ? MICROSECOND";
            case H2 -> "DATEADD(MICROSECOND, ?, CURRENT_TIMESTAMP)";
        };
    }

    /** Puts {@code rows} claimed rows under one lease: parameters owner, lease micros, then the ids. */
    String lease(int rows) {
        return "UPDATE " + table + " SET lease_owner = ?, lease_until = " + plusMicros() + " WHERE id IN ("
                + marks(rows) + ")";
    }

    /** Marks confirmed rows sent, whoever holds them now: they are published. Parameters: the ids. */
    String markSent(int rows) {
        return "UPDATE " + table + " SET state = 'SENT', sent_at = " + now() + ", lease_owner = NULL,"
                + " lease_until = NULL, last_error = NULL WHERE id IN (" + marks(rows) + ") AND state = 'PENDING'";
    }

    /** Deletes confirmed rows. Parameters: the ids. */
    String deleteSent(int rows) {
        return "DELETE FROM " + table + " WHERE id IN (" + marks(rows) + ") AND state = 'PENDING'";
    }

    /**
     * The unsent rows of some aggregates up to an id, in order: the claim keeps an aggregate's candidates only while
     * they are the head of this list. Parameters: the aggregate keys, then the highest candidate id.
     */
    String unsentOfAggregates(int keys) {
        return "SELECT aggregate_key, id FROM " + table + " WHERE aggregate_key IN (" + marks(keys) + ")"
                + " AND state <> 'SENT' AND id <= ? ORDER BY id";
    }

    /** PostgreSQL's notification channel for this table. */
    public String channel() {
        return table;
    }

    private static String marks(int n) {
        StringJoiner j = new StringJoiner(", ");
        for (int i = 0; i < n; i++) {
            j.add("?");
        }
        return j.toString();
    }

    /** Reads a time column as an instant; never through java.sql.Timestamp, which would apply the JVM's zone. */
    Instant readInstant(ResultSet rs, String column) throws SQLException {
        if (dialect == JdbcDialect.MARIADB) {
            LocalDateTime utc = rs.getObject(column, LocalDateTime.class);
            return utc == null ? null : utc.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime t = rs.getObject(column, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }
}
