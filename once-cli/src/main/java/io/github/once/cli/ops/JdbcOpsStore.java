package io.github.once.cli.ops;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceException;
import io.github.once.cli.CliException;
import io.github.once.cli.SqlFailures;
import io.github.once.cli.UrlDataSource;
import io.github.once.jdbc.JdbcDialect;
import io.github.once.jdbc.JdbcIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;

/**
 * Records of the JDBC store, in its table. Reads go through the store where it has the operation (find, purge)
 * and through plain SQL on the same table for the counts.
 */
final class JdbcOpsStore implements OpsStore {
    private static final int PURGE_BATCH = JdbcIdempotencyStore.DEFAULT_PURGE_BATCH;

    private final UrlDataSource dataSource;
    private final JdbcIdempotencyStore store;
    private final JdbcDialect dialect;
    private final String table;
    private final String where;

    private JdbcOpsStore(UrlDataSource dataSource, JdbcIdempotencyStore store, JdbcDialect dialect, String table,
            String where) {
        this.dataSource = dataSource;
        this.store = store;
        this.dialect = dialect;
        this.table = table;
        this.where = where;
    }

    static JdbcOpsStore open(String url, String table) {
        UrlDataSource ds = new UrlDataSource(url);
        String where = UrlDataSource.redacted(url);
        JdbcDialect dialect;
        try (Connection c = ds.getConnection()) {
            try {
                dialect = JdbcDialect.detect(c);
            } catch (IllegalArgumentException e) {
                throw CliException.usage(e.getMessage());
            }
            probe(c, table, where);
        } catch (SQLException e) {
            throw SqlFailures.connecting(where, e);
        }
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(ds).dialect(dialect).tableName(table)
                .queryTimeout(Duration.ofSeconds(10)).build();
        return new JdbcOpsStore(ds, store, dialect, table, where);
    }

    /** Fails with exit status 4 unless the table exists with the columns of a records table. */
    private static void probe(Connection c, String table, String where) {
        try (Statement s = c.createStatement()) {
            s.executeQuery("SELECT namespace, record_key, state, token, lease_until, expires_at, created_at FROM "
                    + table + " WHERE 1 = 0").close();
        } catch (SQLException e) {
            throw CliException.missingSchema("no Once records table '" + table + "' in " + where + " ("
                    + SqlFailures.firstLine(String.valueOf(e.getMessage())) + "); create it with once-jdbc's schema "
                    + "(db/once/<dialect>/V1__once_record.sql) or name yours with --table");
        }
    }

    @Override
    public String describe() {
        return where + ", table " + table;
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        try {
            return store.find(key);
        } catch (OnceException e) {
            throw CliException.unreachable("cannot read from " + where + " (" + RedisOpsStore.rootMessage(e) + ")", e);
        }
    }

    @Override
    public StoreStats stats(String namespace) {
        String now = dialect == JdbcDialect.MARIADB ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
        String filter = namespace == null ? "" : " WHERE namespace = ?";
        String counts = "SELECT"
                + " SUM(CASE WHEN expires_at <= " + now + " THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN expires_at > " + now + " AND state = 'COMPLETED' THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN expires_at > " + now + " AND state <> 'COMPLETED' AND lease_until > " + now
                + " THEN 1 ELSE 0 END),"
                + " SUM(CASE WHEN expires_at > " + now + " AND state <> 'COMPLETED' AND lease_until <= " + now
                + " THEN 1 ELSE 0 END)"
                + " FROM " + table + filter;
        String oldest = "SELECT namespace, record_key, created_at FROM " + table + " WHERE state <> 'COMPLETED' AND"
                + " expires_at > " + now + (namespace == null ? "" : " AND namespace = ?")
                + " ORDER BY created_at LIMIT 1";
        try (Connection c = dataSource.getConnection()) {
            Instant dbNow;
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT " + now)) {
                rs.next();
                dbNow = instant(rs, 1);
            }
            long expired;
            long completed;
            long live;
            long lapsed;
            try (PreparedStatement ps = c.prepareStatement(counts)) {
                bindNamespace(ps, 1, namespace);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    expired = rs.getLong(1);
                    completed = rs.getLong(2);
                    live = rs.getLong(3);
                    lapsed = rs.getLong(4);
                }
            }
            Instant oldestAt = null;
            String oldestKey = null;
            try (PreparedStatement ps = c.prepareStatement(oldest)) {
                bindNamespace(ps, 1, namespace);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        oldestKey = text(rs, 1) + "/" + text(rs, 2);
                        oldestAt = instant(rs, 3);
                    }
                }
            }
            return new StoreStats(completed, live, lapsed, expired, oldestAt, oldestKey, dbNow,
                    expired > 0 ? "expired records stay in the table until a purge deletes them" : null);
        } catch (SQLException e) {
            throw SqlFailures.connecting(where, e);
        }
    }

    @Override
    public PurgeReport purge(boolean dryRun, int max) {
        if (dryRun) {
            String now = dialect == JdbcDialect.MARIADB ? "UTC_TIMESTAMP(6)" : "CURRENT_TIMESTAMP";
            try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + table + " WHERE expires_at <= " + now)) {
                rs.next();
                long n = rs.getLong(1);
                return new PurgeReport(true, Math.min(n, max), n > max ? n + " expired; a purge would delete " + max
                        + " (raise --max)" : null);
            } catch (SQLException e) {
                throw SqlFailures.connecting(where, e);
            }
        }
        try {
            // The store deletes in bounded batches that walk the expiry index, never one unbounded DELETE.
            long total = 0;
            while (total < max) {
                int batch = (int) Math.min(PURGE_BATCH, max - total);
                int deleted = store.purgeExpired(batch);
                total += deleted;
                if (deleted < batch) {
                    break;
                }
            }
            return new PurgeReport(false, total, total >= max ? "stopped at --max " + max + "; run again for more"
                    : null);
        } catch (OnceException e) {
            throw CliException.unreachable("purge failed on " + where + " (" + RedisOpsStore.rootMessage(e) + ")", e);
        }
    }

    private void bindNamespace(PreparedStatement ps, int index, String namespace) throws SQLException {
        if (namespace == null) {
            return;
        }
        if (dialect == JdbcDialect.MARIADB) {
            ps.setBytes(index, namespace.getBytes(StandardCharsets.UTF_8));
        } else {
            ps.setString(index, namespace);
        }
    }

    private String text(ResultSet rs, int index) throws SQLException {
        if (dialect == JdbcDialect.MARIADB) {
            byte[] b = rs.getBytes(index);
            return b == null ? null : new String(b, StandardCharsets.UTF_8);
        }
        return rs.getString(index);
    }

    private Instant instant(ResultSet rs, int index) throws SQLException {
        if (dialect == JdbcDialect.MARIADB) {
            LocalDateTime utc = rs.getObject(index, LocalDateTime.class);
            return utc == null ? null : utc.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime t = rs.getObject(index, OffsetDateTime.class);
        return t == null ? null : t.toInstant();
    }

    @Override
    public void close() {
        store.close();
    }
}
