package io.github.once.outbox;

import io.github.once.OnceException;
import io.github.once.jdbc.JdbcDialect;
import io.github.once.spi.Durations;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes sent outbox rows once they are older than the retention, on a schedule and in bounded batches, so the
 * table never needs one huge DELETE. Pending and parked rows are never touched. Several purgers may run on one
 * table: each batch is a short transaction of its own.
 *
 * <pre>{@code
 * OutboxPurger purger = OutboxPurger.builder(dataSource).retention(Duration.ofDays(1)).build().start();
 * }</pre>
 */
public final class OutboxPurger implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OutboxPurger.class);

    private final DataSource dataSource;
    private final String tableName;
    private final JdbcDialect fixedDialect;
    private final Duration retention;
    private final Duration interval;
    private final int batchSize;
    private final int maxBatchesPerRun;
    private volatile OutboxTable table;
    private ScheduledExecutorService scheduler;

    private OutboxPurger(Builder b) {
        this.dataSource = b.dataSource;
        this.tableName = b.table;
        this.fixedDialect = b.dialect;
        this.retention = b.retention;
        this.interval = b.interval;
        this.batchSize = b.batchSize;
        this.maxBatchesPerRun = b.maxBatchesPerRun;
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** Runs {@link #runOnce()} every interval on a daemon thread of its own. */
    public synchronized OutboxPurger start() {
        if (scheduler != null) {
            throw new IllegalStateException("purger already started");
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "once-outbox-purger");
            t.setDaemon(true);
            return t;
        });
        long millis = interval.toMillis();
        scheduler.scheduleWithFixedDelay(this::runQuietly, millis, millis, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Deletes one batch of at most the batch size; returns how many rows it deleted. */
    public int purgeBatch() {
        return table().purgeSent(retention, batchSize);
    }

    /**
     * Deletes old sent rows batch by batch until a batch comes back short (nothing more is due for now) or the
     * run's batch limit is reached.
     *
     * @return how many rows were deleted
     */
    public int runOnce() {
        int total = 0;
        for (int i = 0; i < maxBatchesPerRun; i++) {
            int deleted = purgeBatch();
            total += deleted;
            if (deleted < batchSize) {
                break;
            }
        }
        return total;
    }

    private void runQuietly() {
        try {
            int deleted = runOnce();
            if (deleted > 0) {
                log.debug("Purged {} sent outbox rows from {}", deleted, tableName);
            }
        } catch (OnceException e) {
            log.warn("Purge of sent outbox rows failed; will try again in {}", interval, e);
        } catch (RuntimeException e) {
            log.error("Unexpected failure purging sent outbox rows; will try again in {}", interval, e);
        }
    }

    private OutboxTable table() {
        OutboxTable t = table;
        if (t == null) {
            JdbcDialect dialect = fixedDialect;
            if (dialect == null) {
                try (Connection c = dataSource.getConnection()) {
                    dialect = JdbcDialect.detect(c);
                } catch (SQLException e) {
                    throw SqlFailures.translate("dialect detection", e);
                }
            }
            t = new OutboxTable(dataSource, new OutboxSql(dialect, tableName));
            table = t;
        }
        return t;
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    public static final class Builder {
        private final DataSource dataSource;
        private String table = Outbox.DEFAULT_TABLE;
        private JdbcDialect dialect;
        private Duration retention = Duration.ofDays(1);
        private Duration interval = Duration.ofMinutes(1);
        private int batchSize = 1_000;
        private int maxBatchesPerRun = 100;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        }

        /** The outbox table (default {@value Outbox#DEFAULT_TABLE}). */
        public Builder tableName(String tableName) {
            this.table = OutboxSql.checkTableName(tableName);
            return this;
        }

        /** The database's dialect; detected from a connection when not set. */
        public Builder dialect(JdbcDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /** How long sent rows are kept, for audits and "was it sent?" questions (default 1 day). May be zero. */
        public Builder retention(Duration retention) {
            if (retention == null || retention.isNegative()) {
                throw new IllegalArgumentException("retention must be zero or positive, but was " + retention);
            }
            this.retention = retention;
            return this;
        }

        /** Time between runs (default 1 minute). */
        public Builder interval(Duration interval) {
            this.interval = Durations.requirePositive(interval, "interval");
            return this;
        }

        /** Rows per DELETE statement (default 1,000). */
        public Builder batchSize(int batchSize) {
            if (batchSize <= 0 || batchSize > 100_000) {
                throw new IllegalArgumentException("batchSize must be between 1 and 100000, but was " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /** Most batches in one run (default 100), so one run never holds the database for long. */
        public Builder maxBatchesPerRun(int maxBatchesPerRun) {
            if (maxBatchesPerRun <= 0) {
                throw new IllegalArgumentException("maxBatchesPerRun must be positive, but was " + maxBatchesPerRun);
            }
            this.maxBatchesPerRun = maxBatchesPerRun;
            return this;
        }

        public OutboxPurger build() {
            return new OutboxPurger(this);
        }
    }
}
