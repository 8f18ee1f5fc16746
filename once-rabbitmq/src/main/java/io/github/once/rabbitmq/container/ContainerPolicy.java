package io.github.once.rabbitmq.container;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.OnceHeaders;
import io.github.once.rabbitmq.internal.Admitted;
import io.github.once.rabbitmq.internal.Decisions;
import io.github.once.rabbitmq.internal.DeliveryKey;
import io.github.once.rabbitmq.internal.DeliveryKeys;
import io.github.once.rabbitmq.internal.Moves;

import java.util.Objects;
import java.util.function.Function;

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
}
