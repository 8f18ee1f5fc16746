package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Calls a {@link ConsumerListener} so that its failures never disturb the consumer. */
final class ListenerCalls {
    private static final Logger log = LoggerFactory.getLogger(ListenerCalls.class);

    private final ConsumerListener listener;

    ListenerCalls(ConsumerListener listener) {
        this.listener = listener;
    }

    void onDelivery(Delivery delivery, int attempt) {
        try {
            listener.onDelivery(delivery, attempt);
        } catch (RuntimeException e) {
            log.warn("ConsumerListener.onDelivery threw; ignored", e);
        }
    }

    void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
        try {
            listener.onAction(delivery, key, action);
        } catch (RuntimeException e) {
            log.warn("ConsumerListener.onAction threw; ignored", e);
        }
    }

    void onPause(Throwable cause, Duration backoff) {
        try {
            listener.onPause(cause, backoff);
        } catch (RuntimeException e) {
            log.warn("ConsumerListener.onPause threw; ignored", e);
        }
    }

    void onResume() {
        try {
            listener.onResume();
        } catch (RuntimeException e) {
            log.warn("ConsumerListener.onResume threw; ignored", e);
        }
    }
}
