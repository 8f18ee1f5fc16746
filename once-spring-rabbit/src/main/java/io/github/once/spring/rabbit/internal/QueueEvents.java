package io.github.once.spring.rabbit.internal;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.container.Disposition;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.IntSupplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the advice tells the consumer listeners of one queue (its processing log, then the application's): the
 * events {@code OnceConsumer} reports, in the same order, and the count of deliveries in hand (taken, not yet
 * settled). A throwing listener is logged and ignored, as {@code OnceConsumer} does, so it can never change what
 * happens to a message.
 */
public final class QueueEvents {
    private static final Logger log = LoggerFactory.getLogger(QueueEvents.class);

    private final AtomicInteger inHand = new AtomicInteger();
    /** Held here for as long as the advice lives: a gauge holds what it reads weakly. */
    private final IntSupplier inFlight = inHand::get;
    private final List<ConsumerListener> listeners;

    /**
     * {@code log} first, then the listener {@code listener} makes for the queue, given the count of its deliveries
     * in flight, and last {@code observed}, which ends each message's observation when it is settled (null: none).
     */
    public QueueEvents(ConsumerListener log, Function<IntSupplier, ConsumerListener> listener,
                       ConsumerListener observed) {
        ConsumerListener made = listener.apply(inFlight);
        List<ConsumerListener> all = new ArrayList<>(List.of(log));
        if (made != null) {
            all.add(made);
        }
        if (observed != null) {
            all.add(observed);
        }
        this.listeners = List.copyOf(all);
    }

    /** The queue's listener starts with these settings. */
    public void started(String queue, String store, ConsumerConfig config) {
        call("onStart", l -> l.onStart(queue, store, config));
    }

    /** Deliveries taken in hand and not yet settled. */
    public int inFlight() {
        return inHand.get();
    }

    /** {@code size} deliveries reached the advice together (one for a single listener). */
    public void batch(int size) {
        call("onBatch", l -> l.onBatch(size));
    }

    public void taken(Delivery delivery, int attempt) {
        inHand.incrementAndGet();
        call("onDelivery", l -> l.onDelivery(delivery, attempt));
    }

    /** A delivery taken in hand was settled. */
    public void settled(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
        inHand.decrementAndGet();
        call("onAction", l -> l.onAction(delivery, key, action));
    }

    /** A delivery given back before it was taken in hand (its queue is paused). */
    public void bounced(Delivery delivery) {
        call("onAction", l -> l.onAction(delivery, null, ConsumerAction.REQUEUED));
    }

    /** A copy of the delivery is safe in a delay or the dead-letter queue. */
    public void moved(Delivery delivery, IdempotencyKey key, Disposition.Move move) {
        if (move instanceof Disposition.Retry retry) {
            call("onRetry", l -> l.onRetry(delivery, key, retry.action(), retry.nextAttempt(), retry.delay(),
                    retry.error()));
        } else if (move instanceof Disposition.DeadLetter dead) {
            call("onDeadLetter", l -> l.onDeadLetter(delivery, key, dead.reason(), dead.error(), dead.detail()));
        }
    }

    /** The containers' broker connection was lost; they recover on their own. */
    void connectionLost(String broker, Throwable cause) {
        call("onConnectionLost", l -> l.onConnectionLost(broker, cause, true));
    }

    void connectionRecovered(String broker, Duration lost) {
        call("onConnectionRecovered", l -> l.onConnectionRecovered(broker, lost));
    }

    void paused(Throwable cause, Duration backoff) {
        call("onPause", l -> l.onPause(cause, backoff));
    }

    void resumed() {
        call("onResume", ConsumerListener::onResume);
    }

    private void call(String event, java.util.function.Consumer<ConsumerListener> call) {
        for (ConsumerListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                log.warn("{} threw in {}; ignored", listener, event, e);
            }
        }
    }
}
