package io.github.once.spring.rabbit.internal;

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

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The advice's {@code once.process} observation of each message, from taken in hand to settled: inside Spring
 * AMQP's own listener observation when that is on, else continuing the trace of the message's headers. The
 * handler runs in {@code once.handle}; a moved copy carries the context. Made only for an observed advice. The
 * containers' threads share it; each message is one thread's.
 */
public final class ObservedMessages implements ConsumerListener {
    private final Map<Delivery, Process> open = new ConcurrentHashMap<>();

    private record Process(Observation observation, String[] reason) {
    }

    public void start(Idempotency executor, Delivery delivery, String queue, IdempotencyKey key, String namespace,
                      int attempt) {
        open.put(delivery, new Process(OnceObservation.startProcess(executor, delivery.getProperties().getHeaders(),
                queue, key, namespace, attempt), new String[1]));
    }

    /** Runs the executor's {@code call} with the message's observation open, so the store calls are its children. */
    public <T> T within(Delivery delivery, Supplier<T> call) {
        Process p = open.get(delivery);
        if (p == null) {
            return call.get();
        }
        try (Observation.Scope scope = p.observation().openScope()) {
            return call.get();
        }
    }

    public <T> Handler<T> handler(Delivery delivery, IdempotencyKey key, Handler<T> handler) {
        Process p = open.get(delivery);
        return p == null ? handler : ctx -> OnceObservation.handle(p.observation(), key, () -> handler.handle(ctx));
    }

    /** A move's copy with the message's trace context in its headers. */
    public Disposition traced(Delivery delivery, Disposition action) {
        Process p = open.get(delivery);
        if (p == null || !(action instanceof Disposition.Move move)) {
            return action;
        }
        AMQP.BasicProperties props = move.properties();
        return move.withProperties(props.builder().headers(OnceObservation.inject(
                p.observation().getObservationRegistry(), p.observation(),
                move instanceof Disposition.DeadLetter ? "dead-letter" : "retry", move.queue(), props.getHeaders()))
                .build());
    }

    @Override
    public void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable cause,
                             String detail) {
        Process p = open.get(delivery);
        if (p != null) {
            p.reason()[0] = reason.code();
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
