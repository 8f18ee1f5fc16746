package io.github.once.jdbc;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;
import io.github.once.spi.PurgeableStore;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records in one SQL table over plain JDBC: PostgreSQL, MariaDB or H2. Every step is one statement on the
 * database's clock; a claim is a single upsert, never check-then-insert, so concurrent duplicates get an answer
 * ({@code Busy}, {@code Duplicate}) rather than a duplicate-key error.
 *
 * <p>On a pool that hands out connections in auto-commit mode (the default of every pool) a step that is one
 * statement runs as that statement alone: a claim, a completion, a release or a look-up costs one round trip and
 * commits with it, no COMMIT after it. So a new key costs two round trips and two commits, claim and completion,
 * and a duplicate one round trip that writes nothing. Batches of distinct keys are one statement too; a batch with
 * a key twice or of more than 500 keys runs in one transaction, so it fails or succeeds whole. A pool in
 * manual-commit mode gets each step as a transaction, committed at its end.
 *
 * <p>{@link #claimAllAsync} and {@link #completeAllAsync} run on a few threads of the store's own
 * ({@link Builder#asyncThreads}, default {@value #DEFAULT_ASYNC_THREADS}): JDBC has no non-blocking API, so an
 * asynchronous call is a blocking call on a thread that is not the caller's, on a connection of its own from the
 * data source. Size the pool for them: {@code asyncThreads} connections beside those of the synchronous callers.
 * {@link #close()} stops these threads; the data source stays the caller's.
 *
 * <p>Used with {@link io.github.once.Idempotency}, the record is written in its own transaction after the handler
 * (a crash between the handler's effect and the record lets the effect repeat). For effects in the same
 * database, give the executor {@link JdbcTransactionScope}, which commits both together.
 *
 * <pre>{@code
 * JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).tableName("once_record").build();
 * }</pre>
 */
public final class JdbcIdempotencyStore implements IdempotencyStore, PurgeableStore {

    private static final Logger log = LoggerFactory.getLogger(JdbcIdempotencyStore.class);
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,47}");
    /** Default rows per purge statement. */
    public static final int DEFAULT_PURGE_BATCH = 1_000;
    /** Default threads for {@link #claimAllAsync} and {@link #completeAllAsync}. */
    public static final int DEFAULT_ASYNC_THREADS = 2;

    private final RecordTable table;
    private final AsyncCalls asyncCalls;
    private final LongAdder purgeDeadlocks = new LongAdder();

    private JdbcIdempotencyStore(Builder b, JdbcDialect dialect) {
        int queryTimeoutSeconds = (int) Math.max(1, (b.queryTimeout.toMillis() + 999) / 1000);
        this.table = new RecordTable(b.dataSource, dialect, b.tableName, queryTimeoutSeconds);
        // A call in flight at close runs a few statements at most, each bounded by the query timeout.
        this.asyncCalls = new AsyncCalls(b.asyncThreads, "once-jdbc-" + b.tableName, b.queryTimeout.multipliedBy(2));
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    public JdbcDialect dialect() {
        return table.sql.dialect;
    }

    public String tableName() {
        return table.sql.table;
    }

    /**
     * Checks that the table exists with every column Once uses.
     *
     * @throws io.github.once.StoreMisconfiguredException when it does not, naming the schema script to run
     * @throws io.github.once.StoreUnavailableException   when the database cannot be reached
     */
    @Override
    public void verify() {
        TableCheck.verify(table);
    }

    @Override
    public String toString() {
        return "JdbcIdempotencyStore[" + table.sql.dialect.name().toLowerCase(Locale.ROOT) + ", table "
                + table.sql.table + "]";
    }

    /** The table and its statements, which the transactional scope runs inside its own transactions. */
    RecordTable table() {
        return table;
    }

    /** Operators' view of this store's table: one record with its standing, counts, oldest claims, purge. */
    public JdbcStoreInspector inspector() {
        return new JdbcStoreInspector(table.dataSource, table.sql, table.queryTimeoutSeconds);
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        return claimAll(List.of(request)).get(0);
    }

    /**
     * One statement for distinct keys (up to 500 per statement), in auto-commit; repeated keys follow in later
     * statements, all in one transaction. Keys whose claims keep losing races are answered from what is committed
     * now.
     */
    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        if (requests.isEmpty()) {
            return List.of();
        }
        return retryingRaces("claim", Claims.oneStatement(requests),
                c -> table.claimAnswering(c, requests, false));
    }

    @Override
    public boolean complete(Lease lease, byte[] result, Duration retention) {
        Completion completion = new Completion(lease, result, retention);
        return retryingRaces("complete", true, c -> table.complete(c, completion, true));
    }

    /**
     * One statement for distinct keys (up to 500 per statement), in auto-commit; a key repeated in the batch
     * follows in a later statement, in one transaction with the first, and so answers as a second single
     * completion would (false after a first that was recorded).
     */
    @Override
    public List<Boolean> completeAll(List<Completion> batch) {
        Objects.requireNonNull(batch, "completions");
        if (batch.isEmpty()) {
            return List.of();
        }
        return retryingRaces("completeAll", Completions.oneStatement(table.sql.dialect, batch),
                c -> table.completeAll(c, batch, true));
    }

    /** {@link #claimAll} on one of the store's own threads (JDBC cannot answer without blocking one). */
    @Override
    public CompletionStage<List<ClaimResult>> claimAllAsync(List<ClaimRequest> requests) {
        return asyncCalls.submit(() -> claimAll(requests));
    }

    /** {@link #completeAll} on one of the store's own threads. */
    @Override
    public CompletionStage<List<Boolean>> completeAllAsync(List<Completion> completions) {
        return asyncCalls.submit(() -> completeAll(completions));
    }

    @Override
    public boolean release(Lease lease) {
        return retryingRaces("release", true, c -> table.release(c, lease, true));
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        positive(leaseDuration, "leaseDuration");
        // MariaDB reads the new deadline back in a second statement, under the lock of the first.
        return retryingRaces("renew", table.sql.renewedDeadline == null, c -> table.renew(c, lease, leaseDuration));
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        Objects.requireNonNull(key, "key");
        return retryingRaces("find", true, c -> table.find(c, key));
    }

    /** Stops the threads of the asynchronous calls (waiting a while for those in flight); the data source stays open. */
    @Override
    public void close() {
        asyncCalls.close();
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
            return table.inTransaction("purge", c -> table.purge(c, rows));
        } catch (RaceLost e) {
            if (SqlErrors.isDeadlock(e.sqlException)) {
                // Concurrent purges must never deadlock; count it so the tests can prove they do not.
                purgeDeadlocks.increment();
                log.warn("Purge of {} was chosen as a deadlock victim; deleting nothing this time", table.sql.table, e);
                return 0;
            }
            // A claim re-took an expired row under this batch: nothing was deleted; the next run goes on.
            log.debug("Purge of {} lost a race; deleting nothing this time", table.sql.table, e);
            return 0;
        }
    }

    /** How many purge batches of this store the database aborted as deadlock victims. */
    long purgeDeadlocks() {
        return purgeDeadlocks.sum();
    }

    /**
     * A step that lost a race (a deadlock, or under REPEATABLE READ a row changed after the snapshot) is tried
     * again, which sees the change and answers from it. {@code autoCommitted}: the step is one statement, or answers
     * the races of its writing statement itself, so it may run in auto-commit mode (see
     * {@link Transaction#runAutoCommitted}); otherwise it runs in a transaction of its own.
     */
    private <R> R retryingRaces(String operation, boolean autoCommitted, Transaction.Work<R> work) {
        for (int attempt = 1; ; attempt++) {
            try {
                return autoCommitted ? table.autoCommitted(operation, work) : table.inTransaction(operation, work);
            } catch (RaceLost e) {
                if (attempt >= RecordTable.CLAIM_ATTEMPTS) {
                    throw SqlErrors.translate(operation, e.sqlException);
                }
            }
        }
    }

    /** The value when it is a positive duration. */
    static Duration positive(Duration value, String name) {
        if (Objects.requireNonNull(value, name).compareTo(Duration.ZERO) <= 0) {
            throw new IllegalArgumentException(name + " must be positive, but was " + value);
        }
        return value;
    }

    /**
     * The dialect's schema scripts, every migration in order, with the table (and its index and key names)
     * renamed. Each statement is idempotent, so running it on a table from an earlier version brings it up to date.
     */
    public static String schemaScript(JdbcDialect dialect, String tableName) {
        validateTableName(tableName);
        StringBuilder script = new StringBuilder();
        for (String resource : dialect.migrationResources()) {
            try (InputStream in = JdbcIdempotencyStore.class.getClassLoader().getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("schema resource " + resource + " is missing");
                }
                script.append(new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("once_record", tableName))
                        .append('\n');
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + resource, e);
            }
        }
        return script.toString();
    }

    static String validateTableName(String tableName) {
        Objects.requireNonNull(tableName, "tableName");
        if (!IDENTIFIER.matcher(tableName).matches()) {
            throw new IllegalArgumentException("tableName must be an SQL identifier of 1 to 48 characters"
                    + " [A-Za-z_][A-Za-z0-9_]*, but was '" + tableName + "'");
        }
        return tableName;
    }

    public static final class Builder {
        private final DataSource dataSource;
        private JdbcDialect dialect;
        private String tableName = "once_record";
        private boolean createTableIfMissing;
        private Duration queryTimeout = Duration.ofSeconds(2);
        private int asyncThreads = DEFAULT_ASYNC_THREADS;

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
            this.queryTimeout = positive(queryTimeout, "queryTimeout");
            return this;
        }

        /**
         * Threads that run {@link #claimAllAsync} and {@link #completeAllAsync} (default
         * {@value JdbcIdempotencyStore#DEFAULT_ASYNC_THREADS}), each with a connection of its own from the data source
         * while it runs: more threads let more calls wait on the database at once, and take as many connections.
         */
        public Builder asyncThreads(int asyncThreads) {
            if (asyncThreads < 1) {
                throw new IllegalArgumentException("asyncThreads must be at least 1, but was " + asyncThreads);
            }
            this.asyncThreads = asyncThreads;
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
                store.table.createTable();
            }
            return store;
        }
    }
}
