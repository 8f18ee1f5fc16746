package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.StoreFullException;
import io.github.once.StoreMisconfiguredException;
import io.github.once.StoreUnavailableException;
import io.github.once.rabbitmq.internal.DeliveryTrail;
import io.github.once.rabbitmq.internal.Durations;
import io.github.once.rabbitmq.internal.LineRate;
import io.github.once.rabbitmq.internal.LogSummaries;
import io.github.once.rabbitmq.internal.WeakTimer;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;

import static io.github.once.rabbitmq.internal.LogFields.code;
import static io.github.once.rabbitmq.internal.LogFields.millis;
import static io.github.once.rabbitmq.internal.LogFields.outcomeName;
import static io.github.once.rabbitmq.internal.LogFields.reason;
import static io.github.once.rabbitmq.internal.LogFields.sha256;
import static io.github.once.rabbitmq.internal.LogFields.token;

/**
 * One log line per settled delivery, with key-value pairs (SLF4J 2): namespace, key (or its digest), action,
 * outcome, attempt, fencing token, handler and store time, for failed attempts the error, and for dead letters the
 * reason, the detail and the cause. Also one line when a consumer starts, when consumption pauses (with the
 * cause), when it resumes, when the broker connection is lost and recovered, and when a lapsed lease is taken over.
 *
 * <p>Every {@link OnceConsumer} writes one: {@code ProcessingLog.builder().queue(queue).build()} unless given
 * another with {@link OnceConsumer.Builder#processingLog(ProcessingLog)} (or passed as its listener). Register the
 * same instance as the executor's listener to add the executor's outcome, token and store time to each line; the
 * two are matched per consumer thread, where both are called.
 *
 * <p>By default processed, duplicate, busy and requeued deliveries log at DEBUG, abandoned deliveries at INFO,
 * failed attempts, dead letters and lost leases at WARN. Dead letters, lost leases, pauses and takeovers are
 * always logged: they cannot be sampled or set below INFO. Lines at INFO and above are rate-limited per kind
 * ({@link Builder#rateLimit}): past the limit they are counted, and every 10 s one line sums up those left out
 * ({@code 82 more dead-lettered: conflict 80, missing-key 2}). Every {@link Builder#summaryEvery} (a minute) an
 * INFO line sums up the deliveries settled per action, and an ERROR says so when every one was dead-lettered for
 * the same reason. A pause that lasts is recalled at most once per {@link Builder#pauseReminder}.
 */
public final class ProcessingLog implements OnceListener, ConsumerListener {

    /** The logger's name by default. */
    public static final String LOGGER = "io.github.once.processing";

    private static final ThreadLocal<DeliveryTrail> TRAILS = ThreadLocal.withInitial(DeliveryTrail::new);

    private final Logger log;
    private final String queue;
    private final boolean digestKeys;
    private final Map<ConsumerAction, Level> levels;
    private final Map<ConsumerAction, Integer> sampling;
    private final Map<ConsumerAction, AtomicLong> seen = new EnumMap<>(ConsumerAction.class);
    private final Map<ConsumerAction, LineRate> rates = new EnumMap<>(ConsumerAction.class);
    private final LineRate connectionRate;
    private final long reminderNanos;
    private final LogSummaries summaries;
    private boolean paused;
    private long pausedSince;
    private long lastPauseLine;
    private Class<?> pauseCause;
    private Level pauseLevel;

    private ProcessingLog(Builder b) {
        this.log = b.logger != null ? b.logger : LoggerFactory.getLogger(LOGGER);
        this.queue = b.queue;
        this.digestKeys = b.digestKeys;
        this.levels = new EnumMap<>(b.levels);
        this.sampling = new EnumMap<>(b.sampling);
        for (ConsumerAction action : ConsumerAction.values()) {
            seen.put(action, new AtomicLong());
            rates.put(action, new LineRate(b.rateLines, b.ratePer));
        }
        this.connectionRate = new LineRate(b.rateLines, b.ratePer);
        this.reminderNanos = b.pauseReminder.toNanos();
        this.summaries = new LogSummaries(b.summaryEvery);
        WeakTimer.every(LogSummaries.TICK, this, log -> log.tick(System.nanoTime()));
    }

    /** Package-private for tests, which call it with a later time instead of waiting for the timer. */
    void tick(long now) {
        summaries.tick(now, log, queue, levels, rates);
    }

    public static ProcessingLog defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    // ---- the executor's side

    @Override
    public void onStoreCall(OnceListener.StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
        if (operation != OnceListener.StoreOperation.RENEW) { // renewals run on their own thread, beside the handler
            TRAILS.get().storeCall(elapsed);
        }
    }

    @Override
    public void onOutcome(Outcome<?> outcome, Duration elapsed) {
        TRAILS.get().outcome(outcome);
    }

    /** A handler ran for {@code elapsed}; {@code failure} is null when it returned. */
    public void onHandler(IdempotencyKey key, Duration elapsed, Throwable failure) {
        TRAILS.get().handler(key, elapsed);
    }

    /** A claim took {@code lease}'s key over from an owner whose lease had lapsed: that owner probably died. */
    public void onTakeover(Lease lease) {
        LoggingEventBuilder line = log.atWarn().setMessage("Took over a lapsed lease: its owner stopped renewing it");
        queue(line).addKeyValue("namespace", lease.key().namespace())
                .addKeyValue("key", display(lease.key()))
                .addKeyValue("token", lease.token())
                .log();
    }

    // ---- the consumer's side

    @Override
    public void onDelivery(Delivery delivery, int attempt) {
        TRAILS.get().delivery(delivery, attempt);
    }

    @Override
    public void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable cause,
                             String detail) {
        TRAILS.get().deadLetter(delivery, new DeliveryTrail.DeadLetter(reason, cause, detail));
    }

    @Override
    public void onRetry(Delivery delivery, IdempotencyKey key, ConsumerAction action, int nextAttempt, Duration delay,
                        Throwable cause) {
        TRAILS.get().retry(delivery, new DeliveryTrail.Retried(nextAttempt, delay, cause));
    }

    /** One INFO line with what the consumer runs with. */
    @Override
    public void onStart(String queue, String store, ConsumerConfig config) {
        log.atInfo().setMessage("Consumer started")
                .addKeyValue("queue", queue)
                .addKeyValue("store", store)
                .addKeyValue("namespace", config.namespaceOf() != null ? "<per message>"
                        : config.namespace() != null ? config.namespace() : queue)
                .addKeyValue("key", String.valueOf(config.keyExtractor()))
                .addKeyValue("prefetch", config.prefetch())
                .addKeyValue("channels", config.channels())
                .addKeyValue("batchClaims", config.batchClaims())
                .log();
    }

    @Override
    public void onConnectionLost(String broker, Throwable cause, boolean recovering) {
        long suppressed = connectionRate.admit(System.nanoTime());
        if (suppressed < 0) {
            return;
        }
        LoggingEventBuilder line = recovering
                ? log.atInfo().setMessage("Connection to the broker lost; waiting for automatic recovery")
                : log.atError().setMessage("Connection to the broker lost and automatic recovery is off: this"
                        + " consumer takes no more deliveries; enable it with ConnectionFactory"
                        + ".setAutomaticRecoveryEnabled(true)");
        suppressed(queue(line).addKeyValue("broker", broker).addKeyValue("cause", String.valueOf(cause)),
                suppressed).log();
    }

    @Override
    public void onConnectionRecovered(String broker, Duration lost) {
        long suppressed = connectionRate.admit(System.nanoTime());
        if (suppressed < 0) {
            return;
        }
        suppressed(queue(log.atInfo().setMessage("Connection to the broker recovered"))
                .addKeyValue("broker", broker).addKeyValue("lostMs", lost.toMillis()), suppressed).log();
    }

    @Override
    public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
        DeliveryTrail.Settled heard = TRAILS.get().settle(delivery, key);
        String deadLetterReason = action == ConsumerAction.DEAD_LETTERED
                ? reason(heard.deadLetter(), key, heard.outcome()) : null;
        summaries.settled(action, deadLetterReason);
        if (!due(action)) {
            return;
        }
        Level level = levels.get(action);
        if (!log.isEnabledForLevel(level)) {
            return;
        }
        long suppressed = level.toInt() >= Level.INFO.toInt() ? rates.get(action).admit(System.nanoTime()) : 0;
        if (suppressed < 0) {
            if (deadLetterReason != null) {
                summaries.suppressedDeadLetter(deadLetterReason);
            }
            return;
        }
        Outcome<?> outcome = heard.outcome();
        Throwable cause = heard.cause();
        LoggingEventBuilder line = log.atLevel(level).setMessage("Delivery " + code(action));
        queue(line);
        if (key != null) {
            line.addKeyValue("namespace", key.namespace()).addKeyValue("key", display(key));
        }
        line.addKeyValue("action", code(action));
        if (outcome != null) {
            line.addKeyValue("outcome", outcomeName(outcome));
        }
        if (heard.attempt() != null) {
            line.addKeyValue("attempt", heard.attempt());
        }
        long token = token(outcome);
        if (token > 0) {
            line.addKeyValue("token", token);
        }
        if (heard.handlerTime() != null) {
            line.addKeyValue("handlerMs", millis(heard.handlerTime().toNanos()));
        }
        if (heard.heard() != null) {
            line.addKeyValue("storeMs", millis(heard.heard().storeNanos()));
        }
        DeliveryTrail.Retried retried = heard.retried();
        if (retried != null) {
            line.addKeyValue("nextAttempt", retried.nextAttempt()).addKeyValue("delayMs", retried.delay().toMillis());
        }
        if (action == ConsumerAction.DEAD_LETTERED) {
            DeliveryTrail.DeadLetter deadLetter = heard.deadLetter();
            if (deadLetterReason != null) {
                line.addKeyValue("reason", deadLetterReason);
            }
            if (deadLetter != null && deadLetter.detail() != null) {
                line.addKeyValue("detail", deadLetter.detail());
            }
            if (cause != null) {
                line.setCause(cause); // the last failure, with its stack trace, once
            }
        }
        if (cause != null) {
            line.addKeyValue("cause", cause.toString());
        }
        suppressed(line, suppressed).log();
    }

    /**
     * The first pause of an outage at WARN, or at ERROR with the stack trace once when waiting will not heal it (a
     * {@link StoreMisconfiguredException}, or any failure that is neither {@link StoreUnavailableException} nor a
     * moved copy's {@link PublishException}); the longer back-offs of the same outage at DEBUG, and
     * at the first line's level at most once per pause reminder.
     */
    @Override
    public void onPause(Throwable cause, Duration backoff) {
        boolean first;
        boolean remind;
        Level level;
        long now = System.nanoTime();
        Class<?> kind = cause == null ? null : cause.getClass();
        synchronized (this) {
            first = !paused || kind != pauseCause;
            if (!paused) {
                pausedSince = now;
            }
            if (first) {
                paused = true;
                pauseCause = kind;
                pauseLevel = heals(cause) ? Level.WARN : Level.ERROR;
                lastPauseLine = now;
            }
            remind = !first && now - lastPauseLine >= reminderNanos;
            if (remind) {
                lastPauseLine = now;
            }
            level = first || remind ? pauseLevel : Level.DEBUG;
        }
        LoggingEventBuilder line = log.atLevel(level);
        line.setMessage(first ? (cause instanceof StoreFullException
                ? "Consumption paused: the store is full and refuses new records until it has room again"
                : level == Level.ERROR
                ? "Consumption paused: the store refuses the work, and waiting will not fix it"
                : "Consumption paused: the store or the broker cannot be reached") : "Consumption still paused");
        queue(line).addKeyValue("backoffMs", backoff.toMillis());
        if (!first) {
            line.addKeyValue("pausedMs", (now - pausedSince) / 1_000_000);
        }
        line.addKeyValue("cause", String.valueOf(cause));
        if (first && level == Level.ERROR && cause != null) {
            line.setCause(cause); // the stack trace once per outage
        }
        line.log();
    }

    private static boolean heals(Throwable cause) {
        return cause instanceof PublishException // a moved copy the broker did not confirm
                || cause instanceof StoreUnavailableException && !(cause instanceof StoreMisconfiguredException);
    }

    @Override
    public void onResume() {
        long since;
        synchronized (this) {
            if (!paused) {
                return;
            }
            paused = false;
            pauseCause = null;
            since = pausedSince;
        }
        queue(log.atInfo().setMessage("Consumption resumed"))
                .addKeyValue("pausedMs", (System.nanoTime() - since) / 1_000_000)
                .log();
    }

    // ---- helpers

    private boolean due(ConsumerAction action) {
        int oneIn = sampling.getOrDefault(action, 1);
        return oneIn == 1 || seen.get(action).getAndIncrement() % oneIn == 0;
    }

    private static LoggingEventBuilder suppressed(LoggingEventBuilder line, long suppressed) {
        return suppressed > 0 ? line.addKeyValue("suppressed", suppressed) : line;
    }

    private LoggingEventBuilder queue(LoggingEventBuilder line) {
        return queue == null ? line : line.addKeyValue("queue", queue);
    }

    private String display(IdempotencyKey key) {
        return digestKeys ? "sha256:" + sha256(key.storageId()) : key.storageId();
    }

    private static boolean alwaysLogged(ConsumerAction action) {
        return action == ConsumerAction.DEAD_LETTERED || action == ConsumerAction.RETRIED_LEASE_LOST;
    }

    /** Builds {@link ProcessingLog}; every setting has a default unless its factory takes it. */
    public static final class Builder {
        private Logger logger;
        private String queue;
        private boolean digestKeys;
        private final Map<ConsumerAction, Level> levels = new EnumMap<>(ConsumerAction.class);
        private final Map<ConsumerAction, Integer> sampling = new EnumMap<>(ConsumerAction.class);
        private int rateLines = 20;
        private Duration ratePer = Duration.ofSeconds(10);
        private Duration pauseReminder = Duration.ofMinutes(1);
        private Duration summaryEvery = Duration.ofMinutes(1);

        private Builder() {
            levels.put(ConsumerAction.PROCESSED, Level.DEBUG);
            levels.put(ConsumerAction.DUPLICATE, Level.DEBUG);
            levels.put(ConsumerAction.RETRIED_BUSY, Level.DEBUG);
            levels.put(ConsumerAction.REQUEUED, Level.DEBUG);
            levels.put(ConsumerAction.RETRIED_FAILED, Level.WARN);
            levels.put(ConsumerAction.ABANDONED, Level.INFO);
            levels.put(ConsumerAction.RETRIED_LEASE_LOST, Level.WARN);
            levels.put(ConsumerAction.DEAD_LETTERED, Level.WARN);
        }

        /** Where the lines go. Default: the logger named {@value ProcessingLog#LOGGER}. */
        public Builder logger(Logger logger) {
            this.logger = Objects.requireNonNull(logger, "logger");
            return this;
        }

        /** The queue, added to every line as {@code queue}. Default: none. */
        public Builder queue(String queue) {
            this.queue = Objects.requireNonNull(queue, "queue");
            return this;
        }

        /** Log a digest of each key instead of the key, when keys are personal data. Default false. */
        public Builder digestKeys(boolean digestKeys) {
            this.digestKeys = digestKeys;
            return this;
        }

        /** The level of {@code action}'s lines. Dead letters and lost leases cannot go below INFO. */
        public Builder level(ConsumerAction action, Level level) {
            Objects.requireNonNull(action, "action");
            Objects.requireNonNull(level, "level");
            if (alwaysLogged(action) && level.toInt() < Level.INFO.toInt()) {
                throw new IllegalArgumentException(code(action) + " is always logged, at INFO or above, but was "
                        + level);
            }
            levels.put(action, level);
            return this;
        }

        /** Log one in {@code n} of {@code action}'s lines (the first, then every n-th). Not for dead letters or lost leases. */
        public Builder sampleOneIn(ConsumerAction action, int n) {
            Objects.requireNonNull(action, "action");
            if (n < 1) {
                throw new IllegalArgumentException("n must be at least 1, but was " + n);
            }
            if (alwaysLogged(action) && n > 1) {
                throw new IllegalArgumentException(code(action) + " is always logged; it cannot be sampled");
            }
            sampling.put(action, n);
            return this;
        }

        /**
         * At most {@code lines} lines of one kind (a delivery action, or the connection's lines) at INFO and above
         * per {@code per}; the next line after the limit carries {@code suppressed}, the number left out. Default
         * 20 per 10 s.
         */
        public Builder rateLimit(int lines, Duration per) {
            if (lines < 1) {
                throw new IllegalArgumentException("lines must be at least 1, but was " + lines);
            }
            this.ratePer = Durations.requirePositive(per, "per");
            this.rateLines = lines;
            return this;
        }

        /** How often a pause that lasts is logged again at its first line's level. Default 1 minute. */
        public Builder pauseReminder(Duration every) {
            this.pauseReminder = Durations.requirePositive(every, "pauseReminder");
            return this;
        }

        /**
         * How often an INFO line sums up the deliveries settled since the last one (their count per action and the
         * rate; none when there were none); {@code Duration.ZERO} for none at all. The same window raises an ERROR
         * when it held at least 10 deliveries and every one was dead-lettered for the same reason. Default 1
         * minute; lines the rate limit left out are summed up every 10 s whatever this is.
         */
        public Builder summaryEvery(Duration every) {
            if (Objects.requireNonNull(every, "summaryEvery").isNegative()) {
                throw new IllegalArgumentException("summaryEvery must not be negative, but was " + every);
            }
            this.summaryEvery = every;
            return this;
        }

        public ProcessingLog build() {
            return new ProcessingLog(this);
        }
    }
}
