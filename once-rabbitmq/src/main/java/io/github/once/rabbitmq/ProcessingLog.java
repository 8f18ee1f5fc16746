package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.StoreRejectedException;
import io.github.once.StoreOperation;
import io.github.once.spi.Lease;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * One log line per settled delivery, with key-value pairs (SLF4J 2): namespace, key (or its digest), action,
 * outcome, attempt, fencing token, handler and store time, and for dead letters the reason and the cause. Also
 * one line when consumption pauses (with the cause), when it resumes, and when a lapsed lease is taken over.
 *
 * <p>Register it as the executor's listener and as the consumer's listener (with {@code Listeners} of
 * once-micrometer when meters listen too): the consumer names the delivery and its action, the executor its
 * outcome, token and store time. The two are matched per consumer thread, where both are called.
 *
 * <p>By default processed, duplicate, busy and requeued deliveries log at DEBUG, failed attempts and abandoned
 * deliveries at INFO, dead letters and lost leases at WARN. Dead letters, lost leases, pauses and takeovers are
 * always logged, once each: they cannot be sampled or set below INFO.
 */
public final class ProcessingLog implements OnceListener, ConsumerListener {

    /** The logger's name by default. */
    public static final String LOGGER = "io.github.once.processing";

    private static final int MAX_REMEMBERED = 4096;
    private static final ThreadLocal<Trail> TRAILS = ThreadLocal.withInitial(Trail::new);

    private final Logger log;
    private final String queue;
    private final boolean digestKeys;
    private final Map<ConsumerAction, Level> levels;
    private final Map<ConsumerAction, Integer> sampling;
    private final Map<ConsumerAction, AtomicLong> seen = new EnumMap<>(ConsumerAction.class);
    private boolean paused;
    private long pausedSince;

    private ProcessingLog(Builder b) {
        this.log = b.logger != null ? b.logger : LoggerFactory.getLogger(LOGGER);
        this.queue = b.queue;
        this.digestKeys = b.digestKeys;
        this.levels = new EnumMap<>(b.levels);
        this.sampling = new EnumMap<>(b.sampling);
        for (ConsumerAction action : ConsumerAction.values()) {
            seen.put(action, new AtomicLong());
        }
    }

    public static ProcessingLog defaults() {
        return custom().build();
    }

    public static Builder custom() {
        return new Builder();
    }

    // ---- the executor's side

    @Override
    public void onStoreCall(StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
        if (operation != StoreOperation.RENEW) { // renewals run on their own thread, beside the handler
            TRAILS.get().storeCall(elapsed);
        }
    }

    @Override
    public void onOutcome(Outcome<?> outcome, Duration elapsed) {
        TRAILS.get().outcome(outcome);
    }

    /** A handler ran for {@code elapsed}; {@code failure} is null when it returned. */
    public void onHandler(IdempotencyKey key, Duration elapsed, Throwable failure) {
        Trail t = TRAILS.get();
        t.handlerTimes.put(key, elapsed);
        t.bound(t.handlerTimes);
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
        Trail t = TRAILS.get();
        t.attempts.put(delivery, attempt);
        t.bound(t.attempts);
    }

    /** {@code delivery} is being dead-lettered for {@code reason}; {@code cause} is the last failure, or null. */
    public void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable cause) {
        Trail t = TRAILS.get();
        t.deadLetters.put(delivery, new DeadLetter(reason, cause));
        t.bound(t.deadLetters);
    }

    @Override
    public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
        Trail t = TRAILS.get();
        Integer attempt = t.attempts.remove(delivery);
        Heard heard = key == null ? null : t.outcomes.remove(key);
        Duration handlerTime = key == null ? null : t.handlerTimes.remove(key);
        DeadLetter deadLetter = t.deadLetters.remove(delivery);
        if (!due(action)) {
            return;
        }
        Level level = levels.get(action);
        if (!log.isEnabledForLevel(level)) {
            return;
        }
        Outcome<?> outcome = heard == null ? null : heard.outcome;
        Throwable cause = deadLetter != null && deadLetter.cause != null ? deadLetter.cause
                : outcome instanceof Outcome.Failed<?> failed ? failed.cause() : null;
        LoggingEventBuilder line = log.atLevel(level).setMessage("Delivery " + code(action));
        queue(line);
        if (key != null) {
            line.addKeyValue("namespace", key.namespace()).addKeyValue("key", display(key));
        }
        line.addKeyValue("action", code(action));
        if (outcome != null) {
            line.addKeyValue("outcome", outcomeName(outcome));
        }
        if (attempt != null) {
            line.addKeyValue("attempt", attempt);
        }
        long token = token(outcome);
        if (token > 0) {
            line.addKeyValue("token", token);
        }
        if (handlerTime != null) {
            line.addKeyValue("handlerMs", millis(handlerTime.toNanos()));
        }
        if (heard != null) {
            line.addKeyValue("storeMs", millis(heard.storeNanos));
        }
        if (action == ConsumerAction.DEAD_LETTERED) {
            String reason = reason(deadLetter, key, outcome);
            if (reason != null) {
                line.addKeyValue("reason", reason);
            }
            if (cause != null) {
                line.setCause(cause); // the last failure, with its stack trace, once
            }
        }
        if (cause != null) {
            line.addKeyValue("cause", cause.toString());
        }
        line.log();
    }

    @Override
    public void onPause(Throwable cause, Duration backoff) {
        boolean first;
        synchronized (this) {
            first = !paused;
            if (first) {
                paused = true;
                pausedSince = System.nanoTime();
            }
        }
        // The first pause of an outage at WARN; the longer back-offs of the same outage at DEBUG.
        LoggingEventBuilder line = first ? log.atWarn() : log.atDebug();
        queue(line.setMessage(first ? "Consumption paused: the store or the broker cannot be reached"
                        : "Consumption still paused"))
                .addKeyValue("backoffMs", backoff.toMillis())
                .addKeyValue("cause", String.valueOf(cause))
                .log();
    }

    @Override
    public void onResume() {
        long since;
        synchronized (this) {
            if (!paused) {
                return;
            }
            paused = false;
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

    private LoggingEventBuilder queue(LoggingEventBuilder line) {
        return queue == null ? line : line.addKeyValue("queue", queue);
    }

    private String display(IdempotencyKey key) {
        return digestKeys ? "sha256:" + sha256(key.storageId()) : key.storageId();
    }

    private static String sha256(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 16); // 128 bits tell keys apart in a log
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }

    private static String reason(DeadLetter deadLetter, IdempotencyKey key, Outcome<?> outcome) {
        if (deadLetter != null) {
            return deadLetter.reason.code();
        }
        // Until the consumer reports dead letters itself, the reason follows from what was heard.
        if (key == null) {
            return DeadLetterReason.MISSING_KEY.code();
        } else if (outcome instanceof Outcome.Conflict) {
            return DeadLetterReason.CONFLICT.code();
        } else if (outcome instanceof Outcome.CrashLoop) {
            return DeadLetterReason.CRASH_LOOP.code();
        } else if (outcome instanceof Outcome.Failed<?> failed && failed.cause() instanceof StoreRejectedException) {
            return DeadLetterReason.STORE_REJECTED.code();
        } else if (outcome instanceof Outcome.Failed) {
            return DeadLetterReason.MAX_ATTEMPTS.code();
        }
        return null;
    }

    private static long token(Outcome<?> outcome) {
        if (outcome instanceof Outcome.Processed<?> processed) {
            return processed.token();
        } else if (outcome instanceof Outcome.LeaseLost<?> lost) {
            return lost.lostLease().token();
        }
        return 0;
    }

    static String outcomeName(Outcome<?> outcome) {
        // Java 17 has no pattern switch: the chain covers every permitted Outcome.
        if (outcome instanceof Outcome.Processed) {
            return "processed";
        } else if (outcome instanceof Outcome.Duplicate) {
            return "duplicate";
        } else if (outcome instanceof Outcome.Busy) {
            return "busy";
        } else if (outcome instanceof Outcome.Conflict) {
            return "conflict";
        } else if (outcome instanceof Outcome.Failed) {
            return "failed";
        } else if (outcome instanceof Outcome.CrashLoop) {
            return "crash-loop";
        }
        return "lease-lost";
    }

    static String code(ConsumerAction action) {
        return action.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.3f", nanos / 1e6);
    }

    private static boolean alwaysLogged(ConsumerAction action) {
        return action == ConsumerAction.DEAD_LETTERED || action == ConsumerAction.RETRIED_LEASE_LOST;
    }

    private record Heard(Outcome<?> outcome, long storeNanos) {
    }

    private record DeadLetter(DeadLetterReason reason, Throwable cause) {
    }

    /**
     * What one consumer thread heard about the deliveries in its hands. The store calls since the last outcome
     * belong to the outcomes that follow them: one execution's claim and completion, or a whole batch's.
     */
    private static final class Trail {
        final Map<Delivery, Integer> attempts = new IdentityHashMap<>();
        final Map<Delivery, DeadLetter> deadLetters = new IdentityHashMap<>();
        final Map<IdempotencyKey, Heard> outcomes = new HashMap<>();
        final Map<IdempotencyKey, Duration> handlerTimes = new HashMap<>();
        long storeNanos;
        boolean outcomesSinceStoreCall;

        void storeCall(Duration elapsed) {
            if (outcomesSinceStoreCall) {
                storeNanos = 0;
                outcomesSinceStoreCall = false;
            }
            storeNanos += elapsed.toNanos();
        }

        void outcome(Outcome<?> outcome) {
            outcomesSinceStoreCall = true;
            outcomes.put(outcome.key(), new Heard(outcome, storeNanos));
            bound(outcomes);
        }

        /** An executor used without a consumer (or the reverse) leaves entries behind: forget them in bulk. */
        void bound(Map<?, ?> map) {
            if (map.size() > MAX_REMEMBERED) {
                map.clear();
            }
        }
    }

    public static final class Builder {
        private Logger logger;
        private String queue;
        private boolean digestKeys;
        private final Map<ConsumerAction, Level> levels = new EnumMap<>(ConsumerAction.class);
        private final Map<ConsumerAction, Integer> sampling = new EnumMap<>(ConsumerAction.class);

        private Builder() {
            levels.put(ConsumerAction.PROCESSED, Level.DEBUG);
            levels.put(ConsumerAction.DUPLICATE, Level.DEBUG);
            levels.put(ConsumerAction.RETRIED_BUSY, Level.DEBUG);
            levels.put(ConsumerAction.REQUEUED, Level.DEBUG);
            levels.put(ConsumerAction.RETRIED_FAILED, Level.INFO);
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

        public ProcessingLog build() {
            return new ProcessingLog(this);
        }
    }
}
