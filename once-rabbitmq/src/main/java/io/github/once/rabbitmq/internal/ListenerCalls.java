package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.DeadLetterReason;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of a consumer (its processing log among them), each told in turn what happened, so that a failing
 * listener never disturbs the consumer or keeps the others from hearing the event.
 */
public final class ListenerCalls implements ConsumerListener {
    private static final Logger log = LoggerFactory.getLogger(ListenerCalls.class);

    private final List<ConsumerListener> listeners;

    public ListenerCalls(List<ConsumerListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public void onDelivery(Delivery delivery, int attempt) {
        each("onDelivery", l -> l.onDelivery(delivery, attempt));
    }

    @Override
    public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
        each("onAction", l -> l.onAction(delivery, key, action));
    }

    @Override
    public void onPause(Throwable cause, Duration backoff) {
        each("onPause", l -> l.onPause(cause, backoff));
    }

    @Override
    public void onResume() {
        each("onResume", ConsumerListener::onResume);
    }

    @Override
    public void onBatch(int size) {
        each("onBatch", l -> l.onBatch(size));
    }

    @Override
    public void onRetry(Delivery delivery, IdempotencyKey key, ConsumerAction action, int nextAttempt, Duration delay,
                        Throwable error) {
        each("onRetry", l -> l.onRetry(delivery, key, action, nextAttempt, delay, error));
    }

    @Override
    public void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable error,
                             String detail) {
        each("onDeadLetter", l -> l.onDeadLetter(delivery, key, reason, error, detail));
    }

    @Override
    public void onStart(String queue, String store, ConsumerConfig config) {
        each("onStart", l -> l.onStart(queue, store, config));
    }

    @Override
    public void onConnectionLost(String broker, Throwable cause, boolean recovering) {
        each("onConnectionLost", l -> l.onConnectionLost(broker, cause, recovering));
    }

    @Override
    public void onConnectionRecovered(String broker, Duration lost) {
        each("onConnectionRecovered", l -> l.onConnectionRecovered(broker, lost));
    }

    private void each(String event, Consumer<ConsumerListener> call) {
        for (ConsumerListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                log.warn("{} threw in {}; ignored", listener, event, e);
            }
        }
    }
}
