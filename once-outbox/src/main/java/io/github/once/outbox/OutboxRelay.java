package io.github.once.outbox;

import com.rabbitmq.client.Connection;

import io.github.once.OnceException;
import io.github.once.jdbc.JdbcDialect;
import io.github.once.outbox.internal.ClaimedRow;
import io.github.once.outbox.internal.OutboxSql;
import io.github.once.outbox.internal.OutboxTable;
import io.github.once.outbox.internal.PgNotifications;
import io.github.once.outbox.internal.PublishOutcome;
import io.github.once.outbox.internal.RetrySchedule;
import io.github.once.outbox.internal.RowPublisher;
import io.github.once.outbox.internal.TableHandle;
import io.github.once.outbox.internal.WakeSignal;
import io.github.once.outbox.internal.Waves;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the outbox's committed rows to RabbitMQ. Each round is three steps, and only the first and the last
 * touch the database, each in a short transaction:
 * <ol>
 *   <li>claim: take a batch of due rows with {@code FOR UPDATE SKIP LOCKED} and put them under this relay's lease
 *       (an owner and a deadline), so other relays pass them over;</li>
 *   <li>publish, outside any transaction: mandatory, persistent, with publisher confirms and the row's own
 *       {@code message_id}, the same on every try;</li>
 *   <li>settle: confirmed rows are marked sent (or deleted); returned or refused ones are due again after a
 *       back-off, then parked with the reason; rows without an answer go back to be sent again.</li>
 * </ol>
 * A relay that dies mid-batch leaves its rows leased until the lease runs out; then another relay sends them
 * again, under the same message IDs, which a {@code OnceConsumer} absorbs as duplicates. Any number of relays may
 * run on one table.
 *
 * <pre>{@code
 * OutboxRelay relay = OutboxRelay.builder(dataSource, rabbitConnection).build().start();
 * // ... relay.close() on shutdown
 * }</pre>
 */
public final class OutboxRelay implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);
    private static final Duration MAX_ERROR_BACKOFF = Duration.ofSeconds(30);

    private final DataSource dataSource;
    private final String tableName;
    private final String name;
    private final int batchSize;
    private final Duration pollInterval;
    private final Duration lease;
    private final Duration confirmTimeout;
    private final RetrySchedule retries;
    private final boolean ordered;
    private final boolean deleteSent;
    private final Wakeup wakeup;
    private final OutboxListener listener;
    private final RowPublisher publisher;
    private final WakeSignal wake = new WakeSignal();
    private final AtomicLong claims = new AtomicLong();
    private final TableHandle table;
    private volatile boolean running;
    private Thread loop;
    private PgNotifications notifications;
    private Thread notificationThread;

    private OutboxRelay(Builder b) {
        this.dataSource = b.dataSource;
        this.tableName = b.table;
        this.table = new TableHandle(b.dataSource, b.dialect, b.table);
        this.name = b.name;
        this.batchSize = b.batchSize;
        this.pollInterval = b.pollInterval;
        this.lease = b.lease;
        this.confirmTimeout = b.confirmTimeout;
        this.retries = new RetrySchedule(b.maxAttempts, b.initialDelay, b.maxDelay);
        this.ordered = b.ordered;
        this.deleteSent = b.deleteSent;
        this.wakeup = b.wakeup;
        this.listener = b.listener;
        this.publisher = new RowPublisher(b.connection, b.confirmTimeout);
    }

    /**
     * @param dataSource the database holding the outbox table; the relay borrows a connection per claim and per
     *                   settle, and on PostgreSQL with {@link Wakeup#LISTEN_NOTIFY} keeps one for listening
     * @param connection the broker connection the relay publishes on (a channel of its own); the caller owns it.
     *                   Automatic recovery, the client's default, is recommended
     */
    public static Builder builder(DataSource dataSource, Connection connection) {
        return new Builder(dataSource, connection);
    }

    /** This relay's name, part of every lease it takes. */
    public String name() {
        return name;
    }

    /** Starts the relay's loop (and, on PostgreSQL, its listener) on daemon threads of their own. */
    public synchronized OutboxRelay start() {
        if (loop != null) {
            throw new IllegalStateException("relay " + name + " already started");
        }
        OutboxTable t = table();
        running = true;
        boolean listening = wakeup == Wakeup.LISTEN_NOTIFY && t.dialect() == JdbcDialect.POSTGRESQL;
        if (listening) {
            notifications = new PgNotifications(dataSource, t.sql().channel(), wake);
            notificationThread = daemon(notifications, "once-outbox-listen-" + name);
            notificationThread.start();
        }
        loop = daemon(this::runLoop, "once-outbox-relay-" + name);
        loop.start();
        log.info("Outbox relay {} started on table {} ({}): batches of {}, polling every {}{}{}", name, tableName,
                t.dialect(), batchSize, pollInterval, listening ? ", woken by LISTEN/NOTIFY" : "",
                ordered ? ", ordered by aggregate" : "");
        return this;
    }

    private static Thread daemon(Runnable r, String threadName) {
        Thread t = new Thread(r, threadName);
        t.setDaemon(true);
        return t;
    }

    private void runLoop() {
        int failures = 0;
        while (running) {
            try {
                RoundResult r = runOnce();
                if (r.claimed() > 0 && r.unconfirmed() == r.claimed()) {
                    // Nothing got through: the broker is unreachable or overloaded. Back off instead of
                    // claiming and giving back the whole table batch by batch.
                    failures++;
                    sleepQuietly(errorBackoff(failures));
                    continue;
                }
                failures = 0;
                if (r.claimed() == batchSize) {
                    continue; // a backlog: go on at once
                }
                wake.await(pollInterval);
            } catch (OnceException e) {
                failures++;
                Duration pause = errorBackoff(failures);
                log.warn("Outbox relay {} round failed; trying again in {}", name, pause, e);
                sleepQuietly(pause);
            } catch (RuntimeException e) {
                failures++;
                Duration pause = errorBackoff(failures);
                log.error("Outbox relay {} round failed unexpectedly; trying again in {}", name, pause, e);
                sleepQuietly(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private Duration errorBackoff(int failures) {
        Duration d = pollInterval.multipliedBy(1L << Math.min(failures, 10));
        return d.compareTo(MAX_ERROR_BACKOFF) > 0 ? MAX_ERROR_BACKOFF : d;
    }

    private void sleepQuietly(Duration d) {
        try {
            wake.await(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * One round: claim a batch, publish it, settle it. The loop started by {@link #start()} calls this; tests and
     * schedulers of their own may call it directly.
     *
     * @throws OnceException when the database failed (rows already published stay leased and are sent again
     *                       after the lease, under the same message IDs)
     */
    public RoundResult runOnce() {
        OutboxTable t = table();
        if (!publisher.brokerReachable()) {
            log.debug("Outbox relay {} skips a round: its broker connection is down (recovering or closed)", name);
            return RoundResult.EMPTY;
        }
        String owner = name + "#" + claims.incrementAndGet();
        List<ClaimedRow> batch = t.claim(owner, batchSize, lease, ordered);
        if (batch.isEmpty()) {
            return RoundResult.EMPTY;
        }
        long claimedAt = System.nanoTime();
        notify(() -> listener.batch(batch.size()));
        List<OutboxTable.Settlement> settlements = new ArrayList<>(batch.size());
        List<Duration> latencies = new ArrayList<>(batch.size());
        Set<String> stopped = new HashSet<>();
        int unconfirmed = 0;
        int heldBack = 0;
        for (List<ClaimedRow> wave : Waves.of(batch, ordered)) {
            List<ClaimedRow> sending = new ArrayList<>(wave.size());
            for (ClaimedRow row : wave) {
                if (row.aggregateKey() != null && stopped.contains(row.aggregateKey())) {
                    settlements.add(new OutboxTable.Settlement(row, new PublishOutcome.HeldBack()));
                    heldBack++;
                } else {
                    sending.add(row);
                }
            }
            List<PublishOutcome> outcomes = publisher.publish(sending);
            Duration sinceClaim = Duration.ofNanos(System.nanoTime() - claimedAt);
            for (int i = 0; i < sending.size(); i++) {
                ClaimedRow row = sending.get(i);
                PublishOutcome outcome = outcomes.get(i);
                settlements.add(new OutboxTable.Settlement(row, outcome));
                if (outcome instanceof PublishOutcome.Confirmed) {
                    latencies.add(row.ageAtClaim().plus(sinceClaim));
                    continue;
                }
                if (ordered && row.aggregateKey() != null) {
                    stopped.add(row.aggregateKey());
                }
                if (outcome instanceof PublishOutcome.Unknown u) {
                    unconfirmed++;
                    log.debug("Outbox message {} (row {}) unconfirmed, will be sent again: {}", row.messageId(),
                            row.id(), u.reason());
                    notify(() -> listener.unconfirmed(row.messageId(), u.reason()));
                }
            }
        }
        OutboxTable.Settled settled;
        try {
            settled = t.settle(owner, settlements, retries, deleteSent);
        } catch (OnceException e) {
            log.warn("Outbox relay {} could not record the outcome of {} rows; published ones will be sent again"
                    + " after their lease ({}), under the same message IDs", name, batch.size(), lease);
            throw e;
        }
        report(settled, settlements, latencies);
        if (unconfirmed > 0) {
            log.warn("Outbox relay {}: {} of {} messages unconfirmed (broker unreachable or slow); they will be sent"
                    + " again under the same message IDs", name, unconfirmed, batch.size());
        }
        return new RoundResult(batch.size(), settled.sent().size(), settled.retried().size(),
                settled.parked().size(), unconfirmed, heldBack);
    }

    private void report(OutboxTable.Settled settled, List<OutboxTable.Settlement> settlements,
                        List<Duration> latencies) {
        int i = 0;
        for (ClaimedRow row : settled.sent()) {
            Duration latency = latencies.get(i++);
            notify(() -> listener.published(row.messageId(), latency));
        }
        for (OutboxTable.Settlement s : settlements) {
            if (!(s.outcome() instanceof PublishOutcome.Rejected rejected)) {
                continue;
            }
            ClaimedRow row = s.row();
            int attempts = row.attempts() + 1;
            if (settled.parked().contains(row)) {
                log.warn("Outbox message {} (row {}, exchange '{}', routing key '{}') parked after {} attempts: {}",
                        row.messageId(), row.id(), row.exchange(), row.routingKey(), attempts, rejected.reason());
                notify(() -> listener.parked(row.messageId(), attempts, rejected.reason()));
            } else {
                Duration delay = retries.delayAfter(attempts);
                log.info("Outbox message {} (row {}) {}; attempt {} of {}, next in {}", row.messageId(), row.id(),
                        rejected.reason(), attempts, retries.maxAttempts(), delay);
                notify(() -> listener.retried(row.messageId(), attempts, rejected.reason(), delay));
            }
        }
    }

    private void notify(Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("Outbox listener failed; ignored", e);
        }
    }

    private OutboxTable table() {
        return table.get();
    }

    /** Stops the loop (waiting for the round in progress, at most the confirm timeout) and closes the channel. */
    @Override
    public void close() {
        Thread l;
        synchronized (this) {
            running = false;
            l = loop;
            loop = null;
            if (notifications != null) {
                notifications.stop();
            }
        }
        wake.signal();
        if (l != null) {
            try {
                l.join(confirmTimeout.plusSeconds(5).toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        publisher.close();
        log.info("Outbox relay {} stopped", name);
    }

    /** Builds {@link OutboxRelay}; every setting has a default unless its factory takes it. */
    public static final class Builder {
        private final DataSource dataSource;
        private final Connection connection;
        private String table = Outbox.DEFAULT_TABLE;
        private JdbcDialect dialect;
        private String name = "relay-" + UUID.randomUUID().toString().substring(0, 8);
        private int batchSize = 100;
        private Duration pollInterval = Duration.ofSeconds(1);
        private Duration lease = Duration.ofSeconds(30);
        private Duration confirmTimeout = Duration.ofSeconds(10);
        private int maxAttempts = 8;
        private Duration initialDelay = Duration.ofSeconds(1);
        private Duration maxDelay = Duration.ofMinutes(5);
        private boolean ordered;
        private boolean deleteSent;
        private Wakeup wakeup = Wakeup.LISTEN_NOTIFY;
        private OutboxListener listener = OutboxListener.NONE;

        private Builder(DataSource dataSource, Connection connection) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            this.connection = Objects.requireNonNull(connection, "connection");
        }

        /** The outbox table (default {@value Outbox#DEFAULT_TABLE}), as the {@link Outbox} writes it. */
        public Builder tableName(String tableName) {
            this.table = OutboxSql.checkTableName(tableName);
            return this;
        }

        /** The database's dialect; detected from a connection when not set. */
        public Builder dialect(JdbcDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /** A name for logs and leases (default {@code relay-} and 8 random characters); unique per relay. */
        public Builder name(String name) {
            if (name == null || name.isBlank() || name.length() > 80) {
                throw new IllegalArgumentException("name must be 1 to 80 characters, but was '" + name + "'");
            }
            this.name = name;
            return this;
        }

        /** Rows per claim (default 100). */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1 || batchSize > 1000) {
                throw new IllegalArgumentException("batchSize must be between 1 and 1000, but was " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /** Time between polls when the table had nothing due (default 1 s). */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = requirePositive(pollInterval, "pollInterval");
            return this;
        }

        /**
         * How long a claim keeps other relays off its rows (default 30 s): the longest a dead relay's batch waits
         * before another relay sends it. Must exceed the confirm timeout, or rows would be re-sent by another
         * relay while this one still waits for their confirms.
         */
        public Builder lease(Duration lease) {
            this.lease = requirePositive(lease, "lease");
            return this;
        }

        /** How long to wait for a batch's confirms before giving its rows back to be sent again (default 10 s). */
        public Builder confirmTimeout(Duration confirmTimeout) {
            this.confirmTimeout = requirePositive(confirmTimeout, "confirmTimeout");
            return this;
        }

        /**
         * Tries for a message the broker returns as unroutable or refuses (default 8), and the back-off between
         * them: {@code initialDelay} (default 1 s), doubled each time, at most {@code maxDelay} (default 5 min).
         * After the last try the row is parked with the reason. Tries without any answer (a lost connection) do
         * not count.
         */
        public Builder retries(int maxAttempts, Duration initialDelay, Duration maxDelay) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1, but was " + maxAttempts);
            }
            requirePositive(initialDelay, "initialDelay");
            requirePositive(maxDelay, "maxDelay");
            if (maxDelay.compareTo(initialDelay) < 0) {
                throw new IllegalArgumentException("maxDelay (" + maxDelay + ") must not be shorter than initialDelay ("
                        + initialDelay + ")");
            }
            this.maxAttempts = maxAttempts;
            this.initialDelay = initialDelay;
            this.maxDelay = maxDelay;
            return this;
        }

        /**
         * Whether messages written with the same aggregate key are published in the order they were written
         * (default false). One relay at a time holds an aggregate's unsent rows, and a message is sent only after
         * the one before it was confirmed; a message that is retried or parked holds back the rest of its
         * aggregate until it is sent (or the parked row is dealt with).
         */
        public Builder orderedByAggregate(boolean ordered) {
            this.ordered = ordered;
            return this;
        }

        /** Delete rows once confirmed instead of marking them sent (default false: kept for the purger). */
        public Builder deleteWhenSent(boolean deleteSent) {
            this.deleteSent = deleteSent;
            return this;
        }

        /** How the relay learns of new rows (default {@link Wakeup#LISTEN_NOTIFY}, which polls too). */
        public Builder wakeup(Wakeup wakeup) {
            this.wakeup = Objects.requireNonNull(wakeup, "wakeup");
            return this;
        }

        public Builder listener(OutboxListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public OutboxRelay build() {
            if (confirmTimeout.compareTo(lease) >= 0) {
                throw new IllegalArgumentException("confirmTimeout (" + confirmTimeout + ") must be shorter than the"
                        + " lease (" + lease + "), or other relays would re-send rows still waiting for confirms");
            }
            return new OutboxRelay(this);
        }
    }

    private static Duration requirePositive(Duration value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, but was " + value);
        }
        return value;
    }

    /**
     * What one relay round did with the rows it claimed.
     *
     * @param claimed     rows taken under this relay's lease
     * @param published   confirmed by the broker and marked sent (or deleted)
     * @param retried     returned or refused, due again after a back-off
     * @param parked      returned or refused too often: kept in the table, parked, with the reason
     * @param unconfirmed no confirm (timeout, lost connection): given back to be sent again, not counted as an attempt
     * @param heldBack    not sent because an earlier message of the same aggregate did not get through
     */
    public record RoundResult(int claimed, int published, int retried, int parked, int unconfirmed, int heldBack) {

        static final RoundResult EMPTY = new RoundResult(0, 0, 0, 0, 0, 0);
    }

    /** How a relay learns that rows were committed. */
    public enum Wakeup {
        /** Poll the table every poll interval. */
        POLLING,
        /**
         * On PostgreSQL, also {@code LISTEN} on the table's channel: {@link Outbox} notifies it in the writing
         * transaction, so the relay runs within milliseconds of the commit. Polling continues beside it, as the safety
         * net for missed notifications. Other databases have no such channel and poll only.
         */
        LISTEN_NOTIFY
    }
}
