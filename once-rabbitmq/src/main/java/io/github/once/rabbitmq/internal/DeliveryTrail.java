package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.rabbitmq.DeadLetterReason;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * What one consumer thread heard about the deliveries in its hands, gathered for the processing log's one line per
 * settled delivery. The store calls since the last outcome belong to the outcomes that follow them: one
 * execution's claim and completion, or a whole batch's. Used by one thread only.
 */
public final class DeliveryTrail {
    private static final int MAX_REMEMBERED = 4096;

    private final Map<Delivery, Integer> attempts = new IdentityHashMap<>();
    private final Map<Delivery, DeadLetter> deadLetters = new IdentityHashMap<>();
    private final Map<Delivery, Retried> retries = new IdentityHashMap<>();
    // In arrival order per key: a batch may hold one key several times (a re-send beside its original), and its
    // deliveries settle in the order their outcomes came.
    private final Map<IdempotencyKey, ArrayDeque<Heard>> outcomes = new HashMap<>();
    private final Map<IdempotencyKey, ArrayDeque<Duration>> handlerTimes = new HashMap<>();
    private long storeNanos;
    private boolean outcomesSinceStoreCall;

    /** What the executor answered for a key, and the store time of the calls that led to it. */
    public record Heard(Outcome<?> outcome, long storeNanos) {
    }

    /** Why a delivery was dead-lettered. */
    public record DeadLetter(DeadLetterReason reason, Throwable cause, String detail) {
    }

    /** When a delivery is tried next, and why. */
    public record Retried(int nextAttempt, Duration delay, Throwable cause) {
    }

    /** Everything heard about one settled delivery; any part may be null. */
    public record Settled(Integer attempt, Heard heard, Duration handlerTime, DeadLetter deadLetter,
                          Retried retried) {

        public Outcome<?> outcome() {
            return heard == null ? null : heard.outcome();
        }

        /** The failure to report: the dead letter's, the retry's, or the failed outcome's. */
        public Throwable cause() {
            if (deadLetter != null && deadLetter.cause() != null) {
                return deadLetter.cause();
            }
            if (retried != null && retried.cause() != null) {
                return retried.cause();
            }
            return outcome() instanceof Outcome.Failed<?> failed ? failed.cause() : null;
        }
    }

    public void storeCall(Duration elapsed) {
        if (outcomesSinceStoreCall) {
            storeNanos = 0;
            outcomesSinceStoreCall = false;
        }
        storeNanos += elapsed.toNanos();
    }

    public void outcome(Outcome<?> outcome) {
        outcomesSinceStoreCall = true;
        append(outcomes, outcome.key(), new Heard(outcome, storeNanos));
    }

    public void handler(IdempotencyKey key, Duration elapsed) {
        append(handlerTimes, key, elapsed);
    }

    public void delivery(Delivery delivery, int attempt) {
        remember(attempts, delivery, attempt);
    }

    public void deadLetter(Delivery delivery, DeadLetter deadLetter) {
        remember(deadLetters, delivery, deadLetter);
    }

    public void retry(Delivery delivery, Retried retried) {
        remember(retries, delivery, retried);
    }

    /** What was heard about {@code delivery} (keyed {@code key}, or null), forgotten here. */
    public Settled settle(Delivery delivery, IdempotencyKey key) {
        return new Settled(attempts.remove(delivery), key == null ? null : first(outcomes, key),
                key == null ? null : first(handlerTimes, key), deadLetters.remove(delivery), retries.remove(delivery));
    }

    private static <V> void append(Map<IdempotencyKey, ArrayDeque<V>> map, IdempotencyKey key, V value) {
        ArrayDeque<V> heard = map.get(key);
        if (heard == null) {
            remember(map, key, heard = new ArrayDeque<>(1));
        }
        heard.add(value);
    }

    /** The oldest value heard for {@code key}, forgotten here; null when none is left. */
    private static <V> V first(Map<IdempotencyKey, ArrayDeque<V>> map, IdempotencyKey key) {
        ArrayDeque<V> heard = map.get(key);
        if (heard == null) {
            return null;
        }
        V value = heard.poll();
        if (heard.isEmpty()) {
            map.remove(key);
        }
        return value;
    }

    /** An executor used without a consumer (or the reverse) leaves entries behind: forget them in bulk. */
    private static <K, V> void remember(Map<K, V> map, K key, V value) {
        map.put(key, value);
        if (map.size() > MAX_REMEMBERED) {
            map.clear();
        }
    }
}
