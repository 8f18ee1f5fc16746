package io.github.once.jdbc;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.StoreUnavailableException;
import io.github.once.jdbc.internal.Claims;
import io.github.once.jdbc.internal.Completions;
import io.github.once.jdbc.internal.JdbcStoreInspector;
import io.github.once.jdbc.internal.JdbcTransactionScope;
import io.github.once.jdbc.internal.RaceLost;
import io.github.once.jdbc.internal.RecordTable;
import io.github.once.jdbc.internal.SqlErrors;
import io.github.once.jdbc.internal.TableCheck;
import io.github.once.jdbc.internal.Transaction;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.Lease;
import io.github.once.spi.StoreInspector;
import io.github.once.spi.TransactionalStore;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
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
 * <p>Used with {@link io.github.once.Idempotency}, the record is written in its own transaction after the handler
 * (a crash between the handler's effect and the record lets the effect repeat). For effects in the same
 * database, build the executor {@link io.github.once.Idempotency.Builder#transactional() transactional()}: the
 * claim, the handler's writes and the record then commit in one transaction ({@link #transactionScope()}).
 *
 * <pre>{@code
 * JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build();
 * Idempotency once = Idempotency.builder(store).transactional().build();
 * Outcome<String> outcome = once.execute(IdempotencyKey.of("payments", messageId), body, ResultCodec.utf8(), ctx -> {
 *     Connection c = ctx.resource(Connection.class); // the transaction's connection: write your effect here
 *     ...
 *     return "charged";
 * });
 * }</pre>
 */
public final class JdbcIdempotencyStore implements TransactionalStore {

    private static final Logger log = LoggerFactory.getLogger(JdbcIdempotencyStore.class);
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,47}");
    /** The record table's name unless one is set, as the schema scripts create it. */
    public static final String DEFAULT_TABLE = "once_record";
    /** Default rows per purge statement. */
    public static final int DEFAULT_PURGE_BATCH = 1_000;

    private final DataSource dataSource;
    private final String tableName;
    private final int queryTimeoutSeconds;
    private final boolean createTableIfMissing;
    /** Set, or detected at the first call that reaches the database. */
    private final JdbcDialect chosenDialect;
    private volatile RecordTable table;
    private final LongAdder purgeDeadlocks = new LongAdder();

    private JdbcIdempotencyStore(Builder b) {
        this.dataSource = b.dataSource;
        this.tableName = b.tableName;
        this.queryTimeoutSeconds = (int) Math.max(1, (b.queryTimeout.toMillis() + 999) / 1000);
        this.createTableIfMissing = b.createTableIfMissing;
        this.chosenDialect = b.dialect;
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * The database's dialect.
     *
     * @throws io.github.once.StoreUnavailableException when it was not set and the database cannot be reached
     */
    public JdbcDialect dialect() {
        return table().sql.dialect;
    }

    public String tableName() {
        return tableName;
    }

    /**
     * Checks that the table exists with every column Once uses.
     *
     * @throws io.github.once.StoreMisconfiguredException when it does not, naming the schema script to run
     * @throws io.github.once.StoreUnavailableException   when the database cannot be reached
     */
    @Override
    public void verify() {
        TableCheck.verify(table());
    }

    @Override
    public String toString() {
        RecordTable known = table;
        JdbcDialect shown = known != null ? known.sql.dialect : chosenDialect;
        return "JdbcIdempotencyStore[" + (shown == null ? "dialect not detected yet" : shown.name().toLowerCase(Locale.ROOT))
                + ", table " + tableName + "]";
    }

    /**
     * Transactional mode: each task or batch in one transaction on a connection from the data source, the claim,
     * the handler's writes and the record committed together. A claim that loses a race is answered from what is
     * committed, and claimed again (in a new transaction, a bounded number of times) only when nothing is.
     */
    @Override
    public ExecutionScope transactionScope() {
        return JdbcTransactionScope.of(this, this::table);
    }

    /**
     * One task inside a transaction the caller manages on {@code connection}, which must not be in auto-commit
     * mode (running a task in it throws {@link IllegalArgumentException} otherwise). {@code Processed} here means
     * "recorded in your transaction": it holds once the caller commits. A claim that loses a race is answered
     * from a fresh read on another connection.
     */
    @Override
    public ExecutionScope joining(Connection connection) {
        return JdbcTransactionScope.joining(this, this::table, connection);
    }

    /**
     * The table and its statements, made at the first call that reaches the database when the store was built
     * while it was down (the dialect is detected then, and the table created if asked).
     */
    RecordTable table() {
        RecordTable known = table;
        return known != null ? known : open();
    }

    private synchronized RecordTable open() {
        if (table == null) {
            JdbcDialect dialect = chosenDialect;
            if (dialect == null) {
                try (Connection c = dataSource.getConnection()) {
                    dialect = JdbcDialect.detect(c);
                } catch (SQLException e) {
                    throw SqlErrors.translate("dialect detection", e);
                }
            }
            RecordTable opened = new RecordTable(dataSource, dialect, tableName, queryTimeoutSeconds);
            if (createTableIfMissing) {
                opened.createTable();
            }
            table = opened;
        }
        return table;
    }

    /** Operators' view of this store's table: one record with its standing, counts, oldest claims, purge. */
    public StoreInspector inspector() {
        RecordTable t = table();
        return new JdbcStoreInspector(t.dataSource, t.sql, t.queryTimeoutSeconds);
    }

    /**
     * One statement for distinct keys (up to 500 per statement), in auto-commit; repeated keys follow in later
     * statements, all in one transaction. Keys whose claims keep losing races are answered from what is committed
     * now.
     */
    @Override
    public List<ClaimResult> claim(List<ClaimRequest> requests) {
        if (requests.isEmpty()) {
            return List.of();
        }
        return retryingRaces("claim", Claims.oneStatement(requests),
                c -> table().claimAnswering(c, requests, false, false));
    }

    private boolean completeOne(Completion completion) {
        return retryingRaces("complete", true, c -> table().complete(c, completion, true));
    }

    /**
     * One statement for distinct keys (up to 500 per statement), in auto-commit; a key repeated in the batch
     * follows in a later statement, in one transaction with the first, and so answers as a second single
     * completion would (false after a first that was recorded).
     */
    @Override
    public List<Boolean> complete(List<Completion> batch) {
        Objects.requireNonNull(batch, "completions");
        if (batch.size() <= 1) {
            return batch.isEmpty() ? List.of() : List.of(completeOne(batch.get(0)));
        }
        return retryingRaces("completeAll", Completions.oneStatement(table().sql.dialect, batch),
                c -> table().completeAll(c, batch, true));
    }

    @Override
    public boolean release(Lease lease) {
        return retryingRaces("release", true, c -> table().release(c, lease, true));
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        positive(leaseDuration, "leaseDuration");
        // MariaDB reads the new deadline back in a second statement, under the lock of the first.
        return retryingRaces("renew", table().sql.renewedDeadline == null, c -> table().renew(c, lease, leaseDuration));
    }

    /** One look-up per key; the operators' reads (the inspector) are where reading many at once matters. */
    @Override
    public List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys) {
        List<Optional<IdempotencyRecord>> found = new ArrayList<>(keys.size());
        for (IdempotencyKey key : keys) {
            Objects.requireNonNull(key, "key");
            found.add(retryingRaces("find", true, c -> table().find(c, key)));
        }
        return found;
    }

    /**
     * Deletes at most {@code maxRecords} expired records, in statements of at most 1,000 rows that walk the expiry
     * index. Safe to run from several processes at once: PostgreSQL skips rows another purge has locked, MariaDB
     * and H2 delete in index order so concurrent purges wait rather than deadlock. {@link JdbcPurger} runs it on a
     * schedule.
     *
     * @return how many were deleted; fewer than {@code maxRecords} means none is left for now
     */
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
        RecordTable t = table();
        try {
            return t.inTransaction("purge", c -> t.purge(c, rows));
        } catch (RaceLost e) {
            if (SqlErrors.isDeadlock(e.sqlException)) {
                // Concurrent purges must never deadlock; count it so the tests can prove they do not.
                purgeDeadlocks.increment();
                log.warn("Purge of {} was chosen as a deadlock victim; deleting nothing this time", t.sql.table, e);
                return 0;
            }
            // A claim re-took an expired row under this batch: nothing was deleted; the next run goes on.
            log.debug("Purge of {} lost a race; deleting nothing this time", t.sql.table, e);
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
                return autoCommitted ? table().autoCommitted(operation, work) : table().inTransaction(operation, work);
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
            try (InputStream in = JdbcIdempotencyStore.class.getResourceAsStream("/" + resource)) {
                if (in == null) {
                    throw new IllegalStateException("schema resource " + resource + " is missing");
                }
                script.append(new String(in.readAllBytes(), StandardCharsets.UTF_8).replace(DEFAULT_TABLE, tableName))
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

    /** Builds a {@link JdbcIdempotencyStore}; the data source is the one setting without a default. */
    public static final class Builder {
        private final DataSource dataSource;
        private JdbcDialect dialect;
        private String tableName = DEFAULT_TABLE;
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
            this.queryTimeout = positive(queryTimeout, "queryTimeout");
            return this;
        }

        /**
         * Detects the dialect (when not set) and creates the table (when asked) now if the database answers. A
         * database that is down does not fail the build: both happen at the first call that reaches it, and
         * until then each call raises {@link io.github.once.StoreUnavailableException}. Call
         * {@link JdbcIdempotencyStore#verify()} to fail at start-up instead.
         */
        public JdbcIdempotencyStore build() {
            JdbcIdempotencyStore store = new JdbcIdempotencyStore(this);
            try {
                store.table();
            } catch (StoreUnavailableException e) {
                log.info("Once: the database does not answer yet; {} connects at its first call ({})", store,
                        e.getMessage());
            }
            return store;
        }
    }
}
