package io.github.once.jdbc;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceException;
import io.github.once.RecordState;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.Durations;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;
import io.github.once.spi.PurgeableStore;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records in one SQL table over plain JDBC: PostgreSQL, MariaDB or H2. Every step is one statement on the
 * database's clock; a claim is a single upsert, never check-then-insert, so concurrent duplicates get an answer
 * ({@code Busy}, {@code Duplicate}) rather than a duplicate-key error.
 *
 * <p>Used with {@link io.github.once.Idempotency}, the record is written in its own transaction after the handler
 * (a crash between the handler's effect and the record lets the effect repeat). For effects in the same
 * database, use {@link TransactionalIdempotency}, which commits both together.
 *
 * <pre>{@code
 * JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).tableName("once_record").build();
 * }</pre>
 */
public final class JdbcIdempotencyStore implements IdempotencyStore, PurgeableStore {

    private static final Logger log = LoggerFactory.getLogger(JdbcIdempotencyStore.class);
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,47}");
    /** Attempts at a claim that lost a race (deadlock, serialization failure) before answering from a fresh read. */
    static final int CLAIM_ATTEMPTS = 3;
    /** Default rows per purge statement. */
    public static final int DEFAULT_PURGE_BATCH = 1_000;

    private final DataSource dataSource;
    private final Sql sql;
    private final Claims claims;
    private final Completions completions;
    private final int queryTimeoutSeconds;

    private JdbcIdempotencyStore(Builder b, JdbcDialect dialect) {
        this.dataSource = b.dataSource;
        this.sql = new Sql(dialect, b.tableName);
        this.queryTimeoutSeconds = (int) Math.max(1, (b.queryTimeout.toMillis() + 999) / 1000);
        this.claims = new Claims(sql, queryTimeoutSeconds);
        this.completions = new Completions(sql, queryTimeoutSeconds);
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    public JdbcDialect dialect() {
        return sql.dialect;
    }

    public String tableName() {
        return sql.table;
    }

    DataSource dataSource() {
        return dataSource;
    }

    /** Operators' view of this store's table: one record with its standing, counts, oldest claims, purge. */
    public JdbcStoreInspector inspector() {
        return new JdbcStoreInspector(dataSource, sql, queryTimeoutSeconds);
    }

    Sql sql() {
        return sql;
    }

    Claims claims() {
        return claims;
    }

    Completions completions() {
        return completions;
    }

    int queryTimeoutSeconds() {
        return queryTimeoutSeconds;
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        return claimAll(List.of(request)).get(0);
    }

    /** One statement for distinct keys (up to 500 per statement); repeated keys follow in later statements. */
    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        if (requests.isEmpty()) {
            return List.of();
        }
        SQLException last = null;
        for (int attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
            try {
                return inTransaction("claim", c -> claims.claimAll(c, requests));
            } catch (RaceLost e) {
                last = e.sqlException;
            }
        }
        // A row that keeps changing under us is being worked on: answer from what is committed now.
        log.debug("Claims on {} lost {} races; answering from a fresh read", sql.table, CLAIM_ATTEMPTS, last);
        List<ClaimResult> answers = new ArrayList<>(requests.size());
        for (ClaimRequest request : requests) {
            answers.add(answerFromRead(request, last).orElseGet(() -> new ClaimResult.Busy(Instant.now().plus(request.leaseDuration()))));
        }
        return answers;
    }

    /**
     * The answer a committed row gives without a claim: completed is a duplicate (or a conflict), in progress is
     * busy. Empty when nothing is committed for the key, so a claim may be tried again.
     */
    Optional<ClaimResult> answerFromRead(ClaimRequest request, SQLException cause) {
        Optional<IdempotencyRecord> found;
        try {
            found = find(request.key());
        } catch (OnceException e) {
            if (cause != null) {
                e.addSuppressed(cause);
            }
            throw e;
        }
        if (found.isEmpty()) {
            return Optional.empty();
        }
        IdempotencyRecord record = found.get();
        if (record.state() == RecordState.COMPLETED) {
            return Optional.of(Claims.conflicts(record.fingerprint(), request.fingerprint())
                    ? new ClaimResult.Conflict(record) : new ClaimResult.Duplicate(record));
        }
        return Optional.of(new ClaimResult.Busy(record.leaseUntil()));
    }

    @Override
    public boolean complete(Lease lease, byte[] result, Duration retention) {
        Durations.requirePositive(retention, "retention");
        return retryingRaces("complete", c -> complete(c, lease, result, retention, true));
    }

    boolean complete(Connection c, Lease lease, byte[] result, Duration retention, boolean checkLease) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(checkLease ? sql.complete : sql.completeHeld)) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            ps.setBytes(1, result);
            ps.setLong(2, Claims.micros(retention));
            bindOwner(ps, 3, lease);
            return ps.executeUpdate() == 1;
        }
    }

    /**
     * One statement for distinct keys (up to 500 per statement), in one transaction; a key repeated in the batch
     * follows in a later statement and so answers as a second single completion would (false after a first that
     * was recorded).
     */
    @Override
    public List<Boolean> completeAll(List<Completion> batch) {
        Objects.requireNonNull(batch, "completions");
        if (batch.isEmpty()) {
            return List.of();
        }
        return retryingRaces("completeAll", c -> completions.completeAll(c, batch, true));
    }

    @Override
    public boolean release(Lease lease) {
        return retryingRaces("release", c -> release(c, lease, true));
    }

    boolean release(Connection c, Lease lease, boolean checkLease) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(checkLease ? sql.release : sql.releaseHeld)) {
            ps.setQueryTimeout(queryTimeoutSeconds);
            bindOwner(ps, 1, lease);
            return ps.executeUpdate() == 1;
        }
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        Durations.requirePositive(leaseDuration, "leaseDuration");
        long micros = Claims.micros(leaseDuration);
        return retryingRaces("renew", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.renew)) {
                ps.setQueryTimeout(queryTimeoutSeconds);
                ps.setLong(1, micros);
                ps.setLong(2, micros);
                bindOwner(ps, 3, lease);
                if (sql.renewedDeadline == null) {
                    try (ResultSet rs = ps.executeQuery()) {
                        return rs.next() ? Optional.of(new Lease(lease.key(), lease.token(), sql.readInstant(rs, 1)))
                                : Optional.<Lease>empty();
                    }
                }
                if (ps.executeUpdate() != 1) {
                    return Optional.<Lease>empty();
                }
            }
            // MariaDB has no UPDATE ... RETURNING: read the deadline back under the lock this transaction holds.
            try (PreparedStatement ps = c.prepareStatement(sql.renewedDeadline)) {
                ps.setQueryTimeout(queryTimeoutSeconds);
                bindOwner(ps, 1, lease);
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        throw new OnceException("renewed row of " + lease.key() + " vanished inside its transaction");
                    }
                    return Optional.of(new Lease(lease.key(), lease.token(), sql.readInstant(rs, 1)));
                }
            }
        });
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        return retryingRaces("find", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.find)) {
                ps.setQueryTimeout(queryTimeoutSeconds);
                sql.bindText(ps, 1, key.namespace());
                sql.bindText(ps, 2, key.storageId());
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) {
                        return Optional.<IdempotencyRecord>empty();
                    }
                    return Optional.of(new IdempotencyRecord(key, RecordState.valueOf(rs.getString(1)), rs.getLong(2),
                            sql.readInstant(rs, 3), rs.getString(5), rs.getBytes(6), sql.readInstant(rs, 4)));
                }
            }
        });
    }

    /**
     * Deletes at most {@code maxRecords} expired records, in statements of at most 1,000 rows that walk the expiry
     * index. Safe to run from several processes at once: PostgreSQL skips rows another purge has locked, MariaDB
     * and H2 delete in index order so concurrent purges wait rather than deadlock.
     */
    @Override
    public int purgeExpired(int maxRecords) {
        if (maxRecords <= 0) {
            throw new IllegalArgumentException("maxRecords must be positive, but was " + maxRecords);
        }
        int purged = 0;
        while (purged < maxRecords) {
            int batch = Math.min(DEFAULT_PURGE_BATCH, maxRecords - purged);
            int deleted = purgeBatch(batch);
            purged += deleted;
            if (deleted < batch) {
                break;
            }
        }
        return purged;
    }

    private int purgeBatch(int rows) {
        try {
            return inTransaction("purge", c -> {
                try (PreparedStatement ps = c.prepareStatement(sql.purge)) {
                    ps.setQueryTimeout(Math.max(queryTimeoutSeconds, 30));
                    ps.setInt(1, rows);
                    return ps.executeUpdate();
                }
            });
        } catch (RaceLost e) {
            // A claim re-took an expired row under this batch: nothing was deleted; the next run goes on.
            log.debug("Purge of {} lost a race; deleting nothing this time", sql.table, e);
            return 0;
        }
    }

    /**
     * A single-row step that lost a race (a deadlock, or under REPEATABLE READ a row changed after the snapshot)
     * is tried again on a fresh transaction, which sees the change and answers from it.
     */
    private <R> R retryingRaces(String operation, SqlWork<R> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return inTransaction(operation, work);
            } catch (RaceLost e) {
                if (attempt >= CLAIM_ATTEMPTS) {
                    throw SqlErrors.translate(operation, e.sqlException);
                }
            }
        }
    }

    private void bindOwner(PreparedStatement ps, int from, Lease lease) throws SQLException {
        sql.bindText(ps, from, lease.key().namespace());
        sql.bindText(ps, from + 1, lease.key().storageId());
        ps.setLong(from + 2, lease.token());
    }

    /**
     * Runs {@code work} in one transaction on a pooled connection and commits, restoring the connection's
     * auto-commit afterwards. A lost race surfaces as {@link RaceLost} so callers can decide to try again.
     */
    <R> R inTransaction(String operation, SqlWork<R> work) {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            try {
                R result = work.run(c);
                c.commit();
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                rollbackQuietly(c, e);
                throw e;
            } finally {
                if (autoCommit) {
                    c.setAutoCommit(true);
                }
            }
        } catch (SQLException e) {
            if (SqlErrors.isRace(e)) {
                throw new RaceLost(e);
            }
            throw SqlErrors.translate(operation, e);
        }
    }

    static void rollbackQuietly(Connection c, Throwable cause) {
        try {
            c.rollback();
        } catch (SQLException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    void createTable() {
        String script = schemaScript(sql.dialect, sql.table);
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            for (String statement : script.split(";\\s*(\\n|$)")) {
                String trimmed = statement.replaceAll("(?m)^--.*$", "").trim();
                if (!trimmed.isEmpty()) {
                    st.execute(trimmed);
                }
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw SqlErrors.translate("create table " + sql.table, e);
        }
    }

    /** The dialect's schema script with the table (and its index and key names) renamed. */
    public static String schemaScript(JdbcDialect dialect, String tableName) {
        validateTableName(tableName);
        try (InputStream in = JdbcIdempotencyStore.class.getClassLoader().getResourceAsStream(dialect.schemaResource())) {
            if (in == null) {
                throw new IllegalStateException("schema resource " + dialect.schemaResource() + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("once_record", tableName);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + dialect.schemaResource(), e);
        }
    }

    static String validateTableName(String tableName) {
        Objects.requireNonNull(tableName, "tableName");
        if (!IDENTIFIER.matcher(tableName).matches()) {
            throw new IllegalArgumentException("tableName must be an SQL identifier of 1 to 48 characters"
                    + " [A-Za-z_][A-Za-z0-9_]*, but was '" + tableName + "'");
        }
        return tableName;
    }

    /** A unit of work on a connection. */
    @FunctionalInterface
    interface SqlWork<R> {
        R run(Connection c) throws SQLException;
    }

    /** A statement lost a race (deadlock, serialization failure, lock wait); nothing it did was kept. */
    static final class RaceLost extends OnceException {
        final SQLException sqlException;

        RaceLost(SQLException e) {
            super("lost a race (SQLState " + e.getSQLState() + "): " + e.getMessage(), e);
            this.sqlException = e;
        }
    }

    public static final class Builder {
        private final DataSource dataSource;
        private JdbcDialect dialect;
        private String tableName = "once_record";
        private boolean createTableIfMissing;
        private Duration queryTimeout = Duration.ofSeconds(2);

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The database's dialect; detected from the connection's metadata when not set. */
        public Builder dialect(JdbcDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /** The table (default {@code once_record}): a plain SQL identifier, never quoted text. */
        public Builder tableName(String tableName) {
            this.tableName = validateTableName(tableName);
            return this;
        }

        /** Creates the table and its expiry index when missing (for demos and tests; use migrations in production). */
        public Builder createTableIfMissing(boolean createTableIfMissing) {
            this.createTableIfMissing = createTableIfMissing;
            return this;
        }

        /**
         * How long one statement may run before the store counts as unavailable (default 2 s, whole seconds,
         * rounded up). The pool's own connection timeout bounds the wait for a connection.
         */
        public Builder queryTimeout(Duration queryTimeout) {
            this.queryTimeout = Durations.requirePositive(queryTimeout, "queryTimeout");
            return this;
        }

        public JdbcIdempotencyStore build() {
            JdbcDialect chosen = dialect;
            if (chosen == null) {
                try (Connection c = dataSource.getConnection()) {
                    chosen = JdbcDialect.detect(c);
                } catch (SQLException e) {
                    throw SqlErrors.translate("dialect detection", e);
                }
            }
            JdbcIdempotencyStore store = new JdbcIdempotencyStore(this, chosen);
            if (createTableIfMissing) {
                store.createTable();
            }
            return store;
        }
    }
}
