package io.github.once.micrometer;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.StoreOperation;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.spi.Lease;
import io.github.once.rabbitmq.DeadLetterReason;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Several listeners where an executor or a consumer takes one (meters and a processing log, say). Each is called
 * in turn; one that throws is logged and the others still hear the event.
 */
public final class Listeners {
    private static final Logger log = LoggerFactory.getLogger(Listeners.class);

    private Listeners() {
    }

    public static OnceListener executor(OnceListener... listeners) {
        List<OnceListener> all = List.of(listeners);
        return new OnceListener() {
            @Override
            public void onOutcome(Outcome<?> outcome, Duration elapsed) {
                each(all, l -> l.onOutcome(outcome, elapsed));
            }

            @Override
            public void onStoreCall(StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
                each(all, l -> l.onStoreCall(operation, keys, elapsed, failure));
            }

            @Override
            public void onHandler(IdempotencyKey key, Duration elapsed, Throwable failure) {
                each(all, l -> l.onHandler(key, elapsed, failure));
            }

            @Override
            public void onTakeover(Lease lease) {
                each(all, l -> l.onTakeover(lease));
            }

            @Override
            public void onRenewal(Lease lease, boolean renewed, Throwable failure) {
                each(all, l -> l.onRenewal(lease, renewed, failure));
            }
        };
    }

    public static ConsumerListener consumer(ConsumerListener... listeners) {
        List<ConsumerListener> all = List.of(listeners);
        return new ConsumerListener() {
            @Override
            public void onDelivery(Delivery delivery, int attempt) {
                each(all, l -> l.onDelivery(delivery, attempt));
            }

            @Override
            public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
                each(all, l -> l.onAction(delivery, key, action));
            }

            @Override
            public void onPause(Throwable cause, Duration backoff) {
                each(all, l -> l.onPause(cause, backoff));
            }

            @Override
            public void onResume() {
                each(all, ConsumerListener::onResume);
            }

            @Override
            public void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable cause) {
                each(all, l -> l.onDeadLetter(delivery, key, reason, cause));
            }

            @Override
            public void onRetry(Delivery delivery, IdempotencyKey key, ConsumerAction action, int nextAttempt,
                                Duration delay) {
                each(all, l -> l.onRetry(delivery, key, action, nextAttempt, delay));
            }

            @Override
            public void onBatch(int size) {
                each(all, l -> l.onBatch(size));
            }
        };
    }

    private static <L> void each(List<L> listeners, Consumer<L> call) {
        for (L listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                log.warn("Listener {} failed; the others still hear the event", listener, e);
            }
        }
    }
}
