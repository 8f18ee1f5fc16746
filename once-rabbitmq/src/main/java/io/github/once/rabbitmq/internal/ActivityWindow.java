package io.github.once.rabbitmq.internal;

import io.github.once.rabbitmq.ConsumerAction;

import java.util.EnumMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the processing log counts between two summaries: the deliveries settled per action, the dead letters per
 * reason, and the dead letters per reason whose lines the rate limit left out. Written by consumer threads, taken
 * by the log's timer.
 */
public final class ActivityWindow {
    private final Map<ConsumerAction, LongAdder> settled = new EnumMap<>(ConsumerAction.class);
    private final Map<String, LongAdder> deadLetters = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> suppressedDeadLetters = new ConcurrentHashMap<>();

    public ActivityWindow() {
        for (ConsumerAction action : ConsumerAction.values()) {
            settled.put(action, new LongAdder());
        }
    }

    /** The deliveries of one window: per action, and the dead letters per reason. */
    public record Taken(Map<ConsumerAction, Long> settled, Map<String, Long> deadLetters) {

        public long total() {
            return settled.values().stream().mapToLong(Long::longValue).sum();
        }

        /** The one reason every delivery of the window was dead-lettered for, or null. */
        public String onlyDeadLetterReason() {
            long dead = settled.getOrDefault(ConsumerAction.DEAD_LETTERED, 0L);
            return dead > 0 && dead == total() && deadLetters.size() == 1 ? deadLetters.keySet().iterator().next()
                    : null;
        }
    }

    /** A delivery was settled; {@code reason} is its dead-letter reason, or null. */
    public void settled(ConsumerAction action, String reason) {
        settled.get(action).increment();
        if (reason != null) {
            deadLetters.computeIfAbsent(reason, r -> new LongAdder()).increment();
        }
    }

    /** A dead letter's line was left out by the rate limit. */
    public void suppressedDeadLetter(String reason) {
        suppressedDeadLetters.computeIfAbsent(reason == null ? "unknown" : reason, r -> new LongAdder()).increment();
    }

    /** The window so far, and a new one started. */
    public Taken take() {
        Map<ConsumerAction, Long> counts = new EnumMap<>(ConsumerAction.class);
        settled.forEach((action, n) -> {
            long count = n.sumThenReset();
            if (count > 0) {
                counts.put(action, count);
            }
        });
        return new Taken(counts, drain(deadLetters));
    }

    /** The left-out dead letters per reason since the last call, by reason name. */
    public Map<String, Long> takeSuppressedDeadLetters() {
        return drain(suppressedDeadLetters);
    }

    private static Map<String, Long> drain(Map<String, LongAdder> counters) {
        Map<String, Long> out = new TreeMap<>();
        counters.forEach((key, n) -> {
            long count = n.sumThenReset();
            if (count > 0) {
                out.put(key, count);
            }
        });
        return out;
    }
}
