package io.github.once.rabbitmq.container;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;

import io.github.once.Handler;
import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.OnceObservation;
import io.github.once.Outcome;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.DeadLetterReason;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.OnceHeaders;
import io.github.once.rabbitmq.internal.Admitted;
import io.github.once.rabbitmq.internal.Decisions;
import io.github.once.rabbitmq.internal.DeliveryKey;
import io.github.once.rabbitmq.internal.DeliveryKeys;
import io.github.once.rabbitmq.internal.Moves;
import io.micrometer.observation.Observation;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The consumer's decisions for a listener container that Once does not run itself (Spring AMQP's, say): each
 * delivery's attempt and key, and what becomes of it once the executor answered, by the same
 * {@link Disposition} as {@link OnceConsumer}'s. It decides only; the container publishes, acks and pauses.
 */
public final class ContainerPolicy {

    private final DeliveryKeys keys;
    private final Decisions disposition;

    private ContainerPolicy(DeliveryKeys keys, Decisions disposition) {
        this.keys = keys;
        this.disposition = disposition;
    }

    /**
     * The policy for deliveries from {@code queue}, with the key extractor, namespace, retry policy, error length
     * and clock of {@code config}; the namespace is the queue name unless {@code config} sets one.
     * {@code crashLoopAfter} is the executor's crash-loop threshold ({@link IdempotencyConfig#crashLoopAfter()}): a
     * keyed delivery whose {@code x-delivery-count} reached it plus the retry budget is dead-lettered as a crash loop
     * unrun, as {@link OnceConsumer} does.
     */
    public static ContainerPolicy of(String queue, ConsumerConfig config, int crashLoopAfter) {
        Objects.requireNonNull(queue, "queue");
        Function<Delivery, String> namespace = config.namespaceOf() != null ? config.namespaceOf()
                : fixed(config.namespace() != null ? config.namespace() : queue);
        return new ContainerPolicy(new DeliveryKeys(config.keyExtractor(), namespace),
                new Decisions(queue, config.retry(), config.maxErrorLength(), config.clock(), crashLoopAfter));
    }

    private static Function<Delivery, String> fixed(String namespace) {
        return d -> namespace;
    }

    /**
     * A delivery taken in hand: its attempt, its key (null when it has none) and, when it must not run, the action
     * that settles it at once: it has no usable key, or a quorum queue returned it too often (a crash loop).
     */
    public record Admitted(Delivery delivery, int attempt, IdempotencyKey key, Disposition early) {
        /** Whether the executor runs it: it has a key and nothing settled it early. */
        public boolean runs() {
            return key != null && early == null;
        }
    }

    /** Finds the delivery's attempt (header {@link OnceHeaders#ATTEMPT}) and key, once. */
    public Admitted admit(Delivery delivery) {
        int attempt = Moves.attempt(delivery);
        DeliveryKey key = keys.resolve(delivery);
        if (key instanceof DeliveryKey.Keyless keyless) {
            return new Admitted(delivery, attempt, null, disposition.keyless(delivery, attempt, keyless));
        }
        return new Admitted(delivery, attempt, key.keyOrNull(), disposition.redeliveredTooOften(delivery, attempt));
    }

    /** What becomes of a delivery, given the executor's answer (null for one that did not run). */
    public Disposition decide(Admitted admitted, Outcome<byte[]> outcome) {
        if (admitted.early() != null) {
            return admitted.early();
        }
        return disposition.decide(admitted.delivery(), admitted.attempt(), outcome);
    }

    /** The executor failed outside the handler (the store is unreachable): give the delivery back and pause. */
    public Disposition storeFailed(Throwable cause) {
        return disposition.storeFailed(cause);
    }

    /**
     * The observations of one listener's deliveries, for an executor that is {@link Idempotency#observed()
     * observed}: each delivery's {@code once.process} from taken in hand ({@link Observations#start}) to settled
     * (this listener's {@link Observations#onAction}), the executor's store calls inside it
     * ({@link Observations#within}), the handler in {@code once.handle} ({@link Observations#handler}) and the
     * trace context in every copy it moves ({@link Observations#traced}).
     * Safe for several container threads, each delivery being one thread's.
     */
    public static Observations observations(Idempotency executor, String queue) {
        if (!executor.observed()) {
            throw new IllegalArgumentException("the executor has no observation registry");
        }
        return new Observations(executor, Objects.requireNonNull(queue, "queue"));
    }

    /** See {@link #observations}. */
    public static final class Observations implements ConsumerListener {
        private final Idempotency executor;
        private final String queue;
        private final Map<Delivery, Observation> open = new ConcurrentHashMap<>();

        private Observations(Idempotency executor, String queue) {
            this.executor = executor;
            this.queue = queue;
        }

        /** Starts the delivery's observation; {@code key} null for a delivery without one. */
        public void start(Delivery delivery, IdempotencyKey key, String namespace, int attempt) {
            open.put(delivery, OnceObservation.startProcess(executor, delivery.getProperties().getHeaders(), queue, key,
                    namespace, attempt));
        }

        /** Runs the executor's {@code call} inside the delivery's observation, so the store calls are its children. */
        public <T> T within(Delivery delivery, Supplier<T> call) {
            Observation process = open.get(delivery);
            if (process == null) {
                return call.get();
            }
            try (Observation.Scope scope = process.openScope()) {
                return call.get();
            }
        }

        /** The delivery's handler, run in its {@code once.handle} observation. */
        public <T> Handler<T> handler(Delivery delivery, IdempotencyKey key, Handler<T> handler) {
            Observation process = open.get(delivery);
            return process == null ? handler : OnceObservation.handled(process, key, handler);
        }

        /** A move whose copy carries the delivery's trace context, so its next attempt or dead letter continues it. */
        public Disposition traced(Delivery delivery, Disposition action) {
            Observation process = open.get(delivery);
            if (process == null || !(action instanceof Disposition.Move move)) {
                return action;
            }
            AMQP.BasicProperties props = move.properties();
            String kind = move instanceof Disposition.DeadLetter ? "dead-letter" : "retry";
            return move.withProperties(props.builder()
                    .headers(OnceObservation.inject(process, kind, move.queue(), props.getHeaders())).build());
        }

        @Override
        public void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable cause,
                                 String detail) {
            Observation process = open.get(delivery);
            if (process != null) {
                process.getContext().put(OnceObservation.Key.REASON, reason.code());
            }
        }

        @Override
        public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
            Observation process = open.remove(delivery);
            if (process != null) {
                OnceObservation.stopProcess(process, action.name());
            }
        }
    }
}
