package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;

import io.github.once.Handler;
import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.OnceObservation;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.DeadLetterReason;
import io.github.once.rabbitmq.container.Disposition;
import io.micrometer.observation.Observation;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The {@code once.process} observation of each delivery of one consumer thread, from taken in hand to settled,
 * with the handler's {@code once.handle} inside and the trace context put into every copy the delivery moves to
 * another queue. Made only for an observed executor; everything runs on the worker's thread.
 */
final class ObservedDeliveries implements ConsumerListener {
    private final Idempotency executor;
    private final String queue;
    private final Map<Delivery, Process> open = new IdentityHashMap<>();

    ObservedDeliveries(Idempotency executor, String queue) {
        this.executor = executor;
        this.queue = queue;
    }

    private record Process(Observation observation, String[] reason) {
    }

    /** Starts the delivery's observation, continuing the trace of its headers. */
    void start(Delivery delivery, IdempotencyKey key, int attempt) {
        Observation observation = OnceObservation.startProcess(executor, delivery.getProperties().getHeaders(), queue,
                key, null, attempt);
        open.put(delivery, new Process(observation, new String[1]));
    }

    /** Runs {@code call} (the executor's) inside the delivery's observation, so the store calls are its children. */
    <T> T within(Delivery delivery, Supplier<T> call) {
        Process p = open.get(delivery);
        if (p == null) {
            return call.get();
        }
        try (Observation.Scope scope = p.observation().openScope()) {
            return call.get();
        }
    }

    /** The handler of {@code delivery}, run in its {@code once.handle} observation. */
    Handler<byte[]> handler(Delivery delivery, IdempotencyKey key, Handler<byte[]> handler) {
        Process p = open.get(delivery);
        if (p == null) {
            return handler;
        }
        return ctx -> OnceObservation.handle(p.observation(), key, () -> handler.handle(ctx));
    }

    /** A move's copy carries the delivery's trace context, so its next attempt or its dead letter continues it. */
    Disposition traced(Delivery delivery, Disposition action) {
        Process p = open.get(delivery);
        if (p == null || !(action instanceof Disposition.Move move)) {
            return action;
        }
        String kind = move instanceof Disposition.DeadLetter ? "dead-letter" : "retry";
        AMQP.BasicProperties props = move.properties();
        Map<String, Object> headers = OnceObservation.inject(p.observation().getObservationRegistry(),
                p.observation(), kind, move.queue(), props.getHeaders());
        return move.withProperties(props.builder().headers(headers).build());
    }

    @Override
    public void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable cause,
                             String detail) {
        Process p = open.get(delivery);
        if (p != null) {
            p.reason()[0] = reason.code();
            if (cause != null) {
                p.observation().error(cause);
            }
        }
    }

    @Override
    public void onRetry(Delivery delivery, IdempotencyKey key, ConsumerAction action, int nextAttempt,
                        java.time.Duration delay, Throwable error) {
        Process p = open.get(delivery);
        if (p != null && error != null) {
            p.observation().error(error);
        }
    }

    @Override
    public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
        Process p = open.remove(delivery);
        if (p != null) {
            OnceObservation.stopProcess(p.observation(), action.name(), p.reason()[0], null);
        }
    }
}
