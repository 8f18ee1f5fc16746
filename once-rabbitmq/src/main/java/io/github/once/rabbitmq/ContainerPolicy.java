package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.Outcome;

import java.util.Objects;
import java.util.function.Function;

/**
 * The consumer's decisions for a listener container that Once does not run itself (Spring AMQP's, say): each
 * delivery's attempt and key, and what becomes of it once the executor answered, by the same
 * {@link Disposition} as {@link OnceConsumer}'s. It decides only; the container publishes, acks and pauses.
 */
public final class ContainerPolicy {

    private final DeliveryKeys keys;
    private final Disposition disposition;

    private ContainerPolicy(DeliveryKeys keys, Disposition disposition) {
        this.keys = keys;
        this.disposition = disposition;
    }

    /**
     * The policy for deliveries from {@code queue}, with the key extractor, namespace, retry policy, error length
     * and clock of {@code config}; the namespace is the queue name unless {@code config} sets one.
     */
    public static ContainerPolicy of(String queue, ConsumerConfig config) {
        Objects.requireNonNull(queue, "queue");
        Function<Delivery, String> namespace = config.namespaceOf() != null ? config.namespaceOf()
                : fixed(config.namespace() != null ? config.namespace() : queue);
        return new ContainerPolicy(new DeliveryKeys(config.keyExtractor(), namespace),
                new Disposition(queue, config.retry(), config.maxErrorLength(), config.clock()));
    }

    private static Function<Delivery, String> fixed(String namespace) {
        return d -> namespace;
    }

    /** A delivery taken in hand: its attempt, and its key or, when it has none, the action that settles it. */
    public record Admitted(Delivery delivery, int attempt, IdempotencyKey key, Disposition.Action keyless) {
    }

    /** Finds the delivery's attempt (header {@link OnceHeaders#ATTEMPT}) and key, once. */
    public Admitted admit(Delivery delivery) {
        int attempt = Moves.attempt(delivery);
        DeliveryKey key = keys.resolve(delivery);
        if (key instanceof DeliveryKey.Keyless keyless) {
            return new Admitted(delivery, attempt, null, disposition.keyless(delivery, attempt, keyless));
        }
        return new Admitted(delivery, attempt, key.keyOrNull(), null);
    }

    /** What becomes of a keyed delivery, given the executor's answer. */
    public Disposition.Action decide(Admitted admitted, Outcome<byte[]> outcome) {
        if (admitted.keyless() != null) {
            return admitted.keyless();
        }
        return disposition.decide(admitted.delivery(), admitted.attempt(), outcome);
    }

    /** The executor failed outside the handler (the store is unreachable): give the delivery back and pause. */
    public Disposition.Action storeFailed(Throwable cause) {
        return disposition.storeFailed(cause);
    }
}
