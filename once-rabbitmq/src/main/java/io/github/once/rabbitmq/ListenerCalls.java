package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the consumer's listener and its processing log what happened, so that a failing listener never disturbs
 * the consumer. The processing log hears more than a listener does (the failure behind a retry, why a key is
 * missing, the connection's loss and recovery), through its own package-private calls.
 */
final class ListenerCalls {
    private static final Logger log = LoggerFactory.getLogger(ListenerCalls.class);

    private final List<ConsumerListener> listeners;
    private final ProcessingLog processing;

    /** @param processing the processing log, or null when it is off */
    ListenerCalls(List<ConsumerListener> listeners, ProcessingLog processing) {
        this.listeners = List.copyOf(listeners);
        this.processing = processing;
    }

    ListenerCalls(ConsumerListener listener) {
        this(List.of(listener), null);
    }

    void onDelivery(Delivery delivery, int attempt) {
        both("onDelivery", l -> l.onDelivery(delivery, attempt));
    }

    void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
        both("onAction", l -> l.onAction(delivery, key, action));
    }

    void onPause(Throwable cause, Duration backoff) {
        both("onPause", l -> l.onPause(cause, backoff));
    }

    void onResume() {
        both("onResume", ConsumerListener::onResume);
    }

    void onBatch(int size) {
        each("onBatch", l -> l.onBatch(size));
    }

    void onRetry(Delivery delivery, IdempotencyKey key, ConsumerAction action, int nextAttempt, Duration delay,
                 Throwable error) {
        each("onRetry", l -> l.onRetry(delivery, key, action, nextAttempt, delay));
        processing(p -> p.onRetry(delivery, key, action, nextAttempt, delay, error));
    }

    void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable error,
                      String detail) {
        each("onDeadLetter", l -> l.onDeadLetter(delivery, key, reason, error));
        processing(p -> p.onDeadLetter(delivery, key, reason, error, detail));
    }

    /** The processing log alone: lines no listener event carries (start, connection lost and recovered). */
    void processing(Consumer<ProcessingLog> line) {
        if (processing != null) {
            call("processing log", processing, line);
        }
    }

    private void each(String event, Consumer<ConsumerListener> call) {
        for (ConsumerListener listener : listeners) {
            call(event, listener, call);
        }
    }

    private void both(String event, Consumer<ConsumerListener> call) {
        each(event, call);
        if (processing != null) {
            call(event, processing, call);
        }
    }

    private static <L> void call(String event, L target, Consumer<L> call) {
        try {
            call.accept(target);
        } catch (RuntimeException e) {
            log.warn("{} threw in {}; ignored", target, event, e);
        }
    }
}
