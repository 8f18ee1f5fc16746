package io.github.once.rabbitmq.internal;

import io.github.once.rabbitmq.ConsumerAction;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.event.Level;
import org.slf4j.spi.LoggingEventBuilder;

/**
 * The processing log's lines on a timer: every {@link #TICK}, the lines the rate limit left out since, summed up
 * per kind (dead letters per reason); once a window is over, the summary of its deliveries, and an ERROR when every
 * one was dead-lettered for the same reason (a key that is never found, say), which per-delivery lines bury.
 */
public final class LogSummaries {
    /** How often left-out lines are summed up, and the window checked for its end. */
    public static final Duration TICK = Duration.ofSeconds(10);
    /** Fewer deliveries than this in a window raise no ERROR for all of them dead-lettered. */
    private static final long MIN_ALL_DEAD = 10;
    private static final Duration DEFAULT_WINDOW = Duration.ofMinutes(1);

    private final ActivityWindow window = new ActivityWindow();
    private final boolean summaryLines;
    private final long windowNanos;
    private long windowStart = System.nanoTime();

    /** {@code every} zero: no summary lines, the ERROR check still on a one-minute window. */
    public LogSummaries(Duration every) {
        this.summaryLines = !every.isZero();
        this.windowNanos = (summaryLines ? every : DEFAULT_WINDOW).toNanos();
    }

    /** A delivery was settled; {@code deadLetterReason} is its reason when it was dead-lettered, else null. */
    public void settled(ConsumerAction action, String deadLetterReason) {
        window.settled(action, deadLetterReason);
    }

    /** A dead letter's line was left out by the rate limit. */
    public void suppressedDeadLetter(String reason) {
        window.suppressedDeadLetter(reason);
    }

    /** One tick at {@code now} (System.nanoTime), on the timer's thread (or a test's). */
    public void tick(long now, Logger log, String queue, Map<ConsumerAction, Level> levels,
                     Map<ConsumerAction, LineRate> rates) {
        for (ConsumerAction action : ConsumerAction.values()) {
            long left = rates.get(action).takeSuppressed();
            if (left > 0) {
                Map<String, Long> reasons = action == ConsumerAction.DEAD_LETTERED
                        ? window.takeSuppressedDeadLetters() : Map.of();
                withQueue(log.atLevel(levels.get(action)).setMessage(left + " more " + LogFields.code(action)
                        + (reasons.isEmpty() ? "" : ": " + LogFields.counts(reasons))), queue)
                        .addKeyValue("action", LogFields.code(action)).addKeyValue("suppressed", left).log();
            }
        }
        if (now - windowStart < windowNanos) {
            return;
        }
        long seconds = Math.max(1, (now - windowStart) / 1_000_000_000L);
        windowStart = now;
        ActivityWindow.Taken taken = window.take();
        long total = taken.total();
        if (total == 0) {
            return;
        }
        if (summaryLines) {
            LoggingEventBuilder line = withQueue(log.atInfo().setMessage("Deliveries settled in the last " + seconds
                    + " s: " + total), queue).addKeyValue("settled", total)
                    .addKeyValue("perSecond", String.format(Locale.ROOT, "%.1f", (double) total / seconds));
            taken.settled().forEach((action, n) -> line.addKeyValue(LogFields.code(action), n));
            line.log();
        }
        String reason = taken.onlyDeadLetterReason();
        if (reason != null && total >= MIN_ALL_DEAD) {
            withQueue(log.atError().setMessage("Every delivery settled in the last " + seconds + " s (" + total
                    + ") was dead-lettered as " + reason + (reason.endsWith("-key")
                    ? ": check how the key is found (the KeyExtractor, or @Once's key, header or field)" : "")), queue)
                    .addKeyValue("reason", reason).addKeyValue("deadLettered", total).log();
        }
    }

    private static LoggingEventBuilder withQueue(LoggingEventBuilder line, String queue) {
        return queue == null ? line : line.addKeyValue("queue", queue);
    }
}
