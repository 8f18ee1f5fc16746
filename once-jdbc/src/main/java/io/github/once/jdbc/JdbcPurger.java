package io.github.once.jdbc;

import io.github.once.OnceException;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes expired records on a schedule, in bounded batches, so the table never needs one huge DELETE. Several
 * processes may run a purger on the same table at once: each batch is a short transaction of its own, and the
 * store's purge statement lets concurrent batches skip or wait for each other rather than deadlock.
 *
 * <pre>{@code
 * JdbcPurger purger = JdbcPurger.builder(store).interval(Duration.ofMinutes(1)).batchSize(1_000).build();
 * purger.start();   // ... purger.close() on shutdown
 * }</pre>
 */
public final class JdbcPurger implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(JdbcPurger.class);

    private final IntUnaryOperator purge;
    private final Duration interval;
    private final int batchSize;
    private final int maxBatchesPerRun;
    private ScheduledExecutorService scheduler;

    private JdbcPurger(Builder b) {
        this.purge = b.purge;
        this.interval = b.interval;
        this.batchSize = b.batchSize;
        this.maxBatchesPerRun = b.maxBatchesPerRun;
    }

    /** A purger of the store's expired records ({@link JdbcIdempotencyStore#purgeExpired(int)}). */
    public static Builder builder(JdbcIdempotencyStore store) {
        return new Builder(Objects.requireNonNull(store, "store")::purgeExpired);
    }

    /**
     * A purger of any table with the same schedule: {@code purge} deletes at most the given number of rows in one
     * bounded batch and answers how many it deleted (fewer means nothing is left for now). once-outbox's purger of
     * sent rows runs on it.
     */
    public static Builder builder(IntUnaryOperator purge) {
        return new Builder(purge);
    }

    /** Runs {@link #runOnce()} every interval on a daemon thread of its own. */
    public synchronized JdbcPurger start() {
        if (scheduler != null) {
            throw new IllegalStateException("purger already started");
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "once-jdbc-purger");
            t.setDaemon(true);
            return t;
        });
        long millis = interval.toMillis();
        scheduler.scheduleWithFixedDelay(this::runQuietly, millis, millis, TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * Deletes expired records batch by batch until a batch comes back short (the backlog is empty for now) or
     * the run's batch limit is reached.
     *
     * @return how many records were deleted
     */
    public int runOnce() {
        int total = 0;
        for (int i = 0; i < maxBatchesPerRun; i++) {
            int deleted = purge.applyAsInt(batchSize);
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
                log.debug("Purged {} expired records", deleted);
            }
        } catch (OnceException e) {
            log.warn("Purge of expired records failed; will try again in {}", interval, e);
        } catch (RuntimeException e) {
            log.error("Unexpected failure purging expired records; will try again in {}", interval, e);
        }
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    /** Builds {@link JdbcPurger}; every setting has a default unless its factory takes it. */
    public static final class Builder {
        private final IntUnaryOperator purge;
        private Duration interval = Duration.ofMinutes(1);
        private int batchSize = JdbcIdempotencyStore.DEFAULT_PURGE_BATCH;
        private int maxBatchesPerRun = 100;

        private Builder(IntUnaryOperator purge) {
            this.purge = Objects.requireNonNull(purge, "purge");
        }

        /** Time between runs (default 1 minute). */
        public Builder interval(Duration interval) {
            this.interval = JdbcIdempotencyStore.positive(interval, "interval");
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

        public JdbcPurger build() {
            return new JdbcPurger(this);
        }
    }
}
