package io.github.once.jdbc.internal;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceException;
import io.github.once.RecordState;
import io.github.once.StoreUnavailableException;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.spi.StoreInspector;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

import javax.sql.DataSource;

/**
 * Operators' view of a {@link JdbcIdempotencyStore}'s table, with its own read-only statements beside the store's
 * (and a purge per namespace). Each call is one short statement on a connection of its own; counts and the oldest
 * claims read the namespace's rows (or the whole table) without an index of their own, so they are for operators,
 * not for every message. A claim's time is the row's {@code created_at}.
 *
 * <p>A release moves the lease deadline to the release time and clears the row's {@code claim_id}, which every claim
 * sets: an in-progress row past its lease without a {@code claim_id} is {@link StoreInspector.Standing#RELEASED}, one with
 * it {@link StoreInspector.Standing#LAPSED}.
 */
public final class JdbcStoreInspector implements StoreInspector {

    private static final int PURGE_TIMEOUT_SECONDS = 30;
    /** A released row: in progress, its claim given back (see {@link Sql}). */
    private static final String RELEASED = "(state = 'IN_PROGRESS' AND claim_id IS NULL)";

    private final DataSource dataSource;
    private final Sql sql;
    private final int queryTimeoutSeconds;
    private final String now;
    private final String inspect;
    private final String counts;
    private final String oldest;
    private final String oldestInNamespace;

    public JdbcStoreInspector(DataSource dataSource, Sql sql, int queryTimeoutSeconds) {
        this.dataSource = dataSource;
        this.sql = sql;
        this.queryTimeoutSeconds = queryTimeoutSeconds;
        String table = sql.table;
        // One clock reading per statement: PostgreSQL's statement start, MariaDB's and H2's are per statement.
        this.now = switch (sql.dialect) {
            case POSTGRESQL -> "statement_timestamp()";
            case MARIADB -> "UTC_TIMESTAMP(6)";
            case H2 -> "CURRENT_TIMESTAMP";
        };
        this.inspect = "SELECT state, token, lease_until, expires_at, fingerprint, result, created_at, " + now
                + ", " + RELEASED + " FROM " + table + " WHERE namespace = ? AND record_key = ? AND expires_at > " + now;
        String live = "expires_at > " + now;
        this.counts = "SELECT " + now + ","
                + " SUM(CASE WHEN " + live + " AND state <> 'COMPLETED' AND lease_until > " + now + " THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN " + live + " AND state <> 'COMPLETED' AND lease_until <= " + now + " AND "
                + RELEASED + " THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN " + live + " AND state <> 'COMPLETED' AND lease_until <= " + now + " AND NOT "
                + RELEASED + " THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN " + live + " AND state = 'COMPLETED' THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN expires_at <= " + now + " THEN 1 ELSE 0 END)"
                + " FROM " + table;
        String open = "SELECT namespace, record_key, token, created_at, lease_until, expires_at, " + now + " FROM "
                + table + " WHERE state = 'IN_PROGRESS' AND NOT " + RELEASED + " AND " + live;
        String order = " ORDER BY created_at, token LIMIT ?";
        this.oldest = open + order;
        this.oldestInNamespace = open + " AND namespace = ?" + order;
    }

    @Override
    public boolean tellsReleasedFromLapsed() {
        return true;
    }

    @Override
    public Optional<StoreInspector.Inspected> inspect(IdempotencyKey key) {
        return read("inspect", inspect, ps -> {
            sql.bindText(ps, 1, key.namespace());
            sql.bindText(ps, 2, key.storageId());
        }, rs -> {
            if (!rs.next()) {
                return Optional.empty();
            }
            RecordState state = RecordState.valueOf(rs.getString(1));
            Instant leaseUntil = sql.readInstant(rs, 3);
            IdempotencyRecord record = new IdempotencyRecord(key, state, rs.getLong(2), leaseUntil,
                    rs.getString(5), rs.getBytes(6), sql.readInstant(rs, 4));
            StoreInspector.Standing standing = StoreInspector.Standing.of(state, leaseUntil, sql.readInstant(rs, 8), rs.getBoolean(9));
            return Optional.of(new StoreInspector.Inspected(record, standing, sql.readInstant(rs, 7), null));
        });
    }

    @Override
    public StoreInspector.Counts count(String namespace) {
        return read("count", counts + (namespace == null ? "" : " WHERE namespace = ?"), ps -> {
            if (namespace != null) {
                sql.bindText(ps, 1, namespace);
            }
        }, rs -> {
            rs.next();
            return new StoreInspector.Counts(sql.readInstant(rs, 1), rs.getLong(2), rs.getLong(3), rs.getLong(4),
                    rs.getLong(5), rs.getLong(6));
        });
    }

    @Override
    public List<StoreInspector.Summary> oldestInProgress(String namespace, int limit) {
        if (limit <= 0) {
            return List.of();
        }
        return read("oldest claims", namespace == null ? oldest : oldestInNamespace, ps -> {
            int next = 1;
            if (namespace != null) {
                sql.bindText(ps, next++, namespace);
            }
            ps.setInt(next, limit);
        }, rs -> {
            List<StoreInspector.Summary> open = new ArrayList<>();
            while (rs.next()) {
                Instant leaseUntil = sql.readInstant(rs, 5);
                open.add(new StoreInspector.Summary(sql.readText(rs, 1), sql.readText(rs, 2),
                        StoreInspector.Standing.of(RecordState.IN_PROGRESS, leaseUntil, sql.readInstant(rs, 7), false),
                        rs.getLong(3), sql.readInstant(rs, 4), leaseUntil, sql.readInstant(rs, 6)));
            }
            return List.copyOf(open);
        });
    }

    /**
     * One bounded DELETE that walks the expiry index (PostgreSQL locks its batch with {@code SKIP LOCKED}). A
     * batch that loses a race with a claim deletes nothing this time.
     */
    @Override
    public int purgeExpired(String namespace, int maxRecords) {
        return delete("purge", purge(namespace != null), namespace, maxRecords);
    }

    @Override
    public int deleteNamespace(String namespace, int maxRecords) {
        return delete("delete", deleteAll(), Objects.requireNonNull(namespace, "namespace"), maxRecords);
    }

    /** One bounded delete: {@code statement} binds the namespace (when not null), then the most rows. */
    private int delete(String operation, String statement, String namespace, int maxRecords) {
        if (maxRecords <= 0) {
            throw new IllegalArgumentException("maxRecords must be positive, but was " + maxRecords);
        }
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(statement)) {
                ps.setQueryTimeout(Math.max(queryTimeoutSeconds, PURGE_TIMEOUT_SECONDS));
                int next = 1;
                if (namespace != null) {
                    sql.bindText(ps, next++, namespace);
                }
                ps.setInt(next, maxRecords);
                int deleted = ps.executeUpdate();
                end(c);
                return deleted;
            } catch (SQLException e) {
                rollBack(c);
                if (SqlErrors.isRace(e)) {
                    return 0;
                }
                throw e;
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(operation, e);
        }
    }

    private String deleteAll() {
        String table = sql.table;
        return switch (sql.dialect) {
            case POSTGRESQL -> "DELETE FROM " + table + " AS t USING (SELECT namespace, record_key FROM " + table
                    + " WHERE namespace = ? LIMIT ? FOR UPDATE SKIP LOCKED) AS d"
                    + " WHERE t.namespace = d.namespace AND t.record_key = d.record_key";
            case MARIADB -> "DELETE FROM " + table + " WHERE namespace = ? LIMIT ?";
            case H2 -> "DELETE FROM " + table + " WHERE namespace = ? FETCH FIRST ? ROWS ONLY";
        };
    }

    private String purge(boolean inNamespace) {
        String table = sql.table;
        String filter = inNamespace ? " AND namespace = ?" : "";
        return switch (sql.dialect) {
            case POSTGRESQL -> "DELETE FROM " + table + " AS t USING (SELECT namespace, record_key FROM " + table
                    + " WHERE expires_at <= clock_timestamp()" + filter
                    + " ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED) AS d"
                    + " WHERE t.namespace = d.namespace AND t.record_key = d.record_key";
            case MARIADB -> "DELETE FROM " + table + " WHERE expires_at <= UTC_TIMESTAMP(6)" + filter
                    + " ORDER BY expires_at LIMIT ?";
            case H2 -> "DELETE FROM " + table + " WHERE expires_at <= CURRENT_TIMESTAMP" + filter
                    + " FETCH FIRST ? ROWS ONLY";
        };
    }

    private interface Binder {
        void bind(PreparedStatement ps) throws SQLException;
    }

    private interface Reader<R> {
        R read(ResultSet rs) throws SQLException;
    }

    private <R> R read(String operation, String query, Binder binder, Reader<R> reader) {
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement ps = c.prepareStatement(query)) {
                ps.setQueryTimeout(queryTimeoutSeconds);
                binder.bind(ps);
                R answer;
                try (ResultSet rs = ps.executeQuery()) {
                    answer = reader.read(rs);
                }
                end(c);
                return answer;
            } catch (SQLException e) {
                rollBack(c);
                throw e;
            }
        } catch (SQLException e) {
            throw SqlErrors.translate(operation, e);
        }
    }

    /** Ends the transaction a connection in manual-commit mode (a pool's setting) opened. */
    private static void end(Connection c) throws SQLException {
        if (!c.getAutoCommit()) {
            c.commit();
        }
    }

    private static void rollBack(Connection c) {
        try {
            if (!c.getAutoCommit()) {
                c.rollback();
            }
        } catch (SQLException e) {
            // The connection is going back broken or is gone; the failure that brought us here is reported.
        }
    }

    private static String firstLine(SQLException e) {
        String message = String.valueOf(e.getMessage());
        int nl = message.indexOf('\n');
        return nl < 0 ? message : message.substring(0, nl);
    }
}
