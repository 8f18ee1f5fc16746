package io.github.once.outbox;

import io.github.once.jdbc.JdbcDialect;
import io.github.once.jdbc.JdbcPurger;
import io.github.once.outbox.internal.OutboxSql;
import io.github.once.outbox.internal.TableHandle;

import java.time.Duration;
import java.util.Objects;

import javax.sql.DataSource;

/**
 * Deletes sent outbox rows once they are older than the retention, on a schedule and in bounded batches, so the
 * table never needs one huge DELETE. Pending and parked rows are never touched. Several purgers may run on one
 * table: each batch is a short transaction of its own. The schedule is the record table's ({@link JdbcPurger});
 * only what a batch deletes differs.
 *
 * <pre>{@code
 * OutboxPurger purger = OutboxPurger.builder(dataSource).retention(Duration.ofDays(1)).build().start();
 * }</pre>
 */
public final class OutboxPurger implements AutoCloseable {

    private final SentRows sentRows;
    private final int batchSize;
    private final JdbcPurger schedule;

    private OutboxPurger(Builder b) {
        this.sentRows = new SentRows(new TableHandle(b.dataSource, b.dialect, b.table), b.retention);
        this.batchSize = b.batchSize;
        this.schedule = JdbcPurger.builder(sentRows::purgeExpired).interval(b.interval).batchSize(b.batchSize)
                .maxBatchesPerRun(b.maxBatchesPerRun).build();
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /** Runs {@link #runOnce()} every interval on a daemon thread of its own. */
    public OutboxPurger start() {
        schedule.start();
        return this;
    }

    /** Deletes one batch of at most the batch size; returns how many rows it deleted. */
    public int purgeBatch() {
        return sentRows.purgeExpired(batchSize);
    }

    /**
     * Deletes old sent rows batch by batch until a batch comes back short (nothing more is due for now) or the
     * run's batch limit is reached.
     *
     * @return how many rows were deleted
     */
    public int runOnce() {
        return schedule.runOnce();
    }

    @Override
    public void close() {
        schedule.close();
    }

    /** Sent rows past their retention, as the purge schedule sees them. */
    private record SentRows(TableHandle table, Duration retention) {
        int purgeExpired(int maxRecords) {
            return table.get().purgeSent(retention, maxRecords);
        }
    }

    /** Builds {@link OutboxPurger}; every setting has a default unless its factory takes it. */
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

        /** Time between runs (default 1 minute); checked when built. */
        public Builder interval(Duration interval) {
            this.interval = interval;
            return this;
        }

        /** Rows per DELETE statement (default 1,000, at most 100,000); checked when built. */
        public Builder batchSize(int batchSize) {
            this.batchSize = batchSize;
            return this;
        }

        /** Most batches in one run (default 100), so one run never holds the database for long; checked when built. */
        public Builder maxBatchesPerRun(int maxBatchesPerRun) {
            this.maxBatchesPerRun = maxBatchesPerRun;
            return this;
        }

        public OutboxPurger build() {
            return new OutboxPurger(this);
        }
    }
}
