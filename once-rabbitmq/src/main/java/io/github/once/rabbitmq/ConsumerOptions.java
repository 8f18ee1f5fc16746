package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.internal.Durations;
import io.github.once.rabbitmq.internal.MonotonicClock;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * The settings of a consumer and their checks, written once for the two builders that take them:
 * {@link ConsumerConfig.Builder} and {@link OnceConsumer.Builder}.
 */
abstract class ConsumerOptions<B extends ConsumerOptions<B>> {
    KeyExtractor keyExtractor = KeyExtractor.messageId();
    String namespace;
    Function<Delivery, String> namespaceOf;
    int prefetch = 50;
    int channels = 1;
    boolean batchClaims = true;
    int maxBatch = 0;
    RetryPolicy retry = RetryPolicy.defaults();
    Topology topology = Topology.retryQueuesOnly(Topology.QueueType.CLASSIC);
    Duration moveTimeout = Duration.ofSeconds(5);
    Duration shutdownTimeout = Duration.ofSeconds(30);
    Duration storeBackoff = Duration.ofMillis(200);
    Duration maxStoreBackoff = Duration.ofSeconds(10);
    int maxErrorLength = 1000;
    Clock clock = MonotonicClock.SYSTEM;

    abstract B self();

    /** Where the idempotency id comes from. Default: the {@code message_id} property. */
    public B keyExtractor(KeyExtractor keys) {
        this.keyExtractor = Objects.requireNonNull(keys, "keyExtractor");
        return self();
    }

    /** The key namespace for every message. Default: the queue name. */
    public B namespace(String namespace) {
        IdempotencyKey.of(Objects.requireNonNull(namespace, "namespace"), "check"); // validates the namespace
        this.namespace = namespace;
        this.namespaceOf = null;
        return self();
    }

    /** The key namespace per message, for example by its {@code type} property. */
    public B namespace(Function<Delivery, String> namespace) {
        this.namespaceOf = Objects.requireNonNull(namespace, "namespace");
        this.namespace = null;
        return self();
    }

    /** Unacked deliveries per channel ({@code basic.qos}). Default 50. */
    public B prefetch(int prefetch) {
        if (prefetch < 1 || prefetch > 65535) {
            throw new IllegalArgumentException("prefetch must be 1 to 65535, but was " + prefetch);
        }
        this.prefetch = prefetch;
        return self();
    }

    /** Channels consuming in parallel, each with its own thread. Default 1. */
    public B channels(int channels) {
        if (channels < 1 || channels > 256) {
            throw new IllegalArgumentException("channels must be 1 to 256, but was " + channels);
        }
        this.channels = channels;
        return self();
    }

    /**
     * Claim the deliveries in hand with one store call ({@code executeAll}) and record their completions with one
     * more, instead of two calls per message. Default: on. A batch takes only what has already arrived, never
     * waiting for more; its handlers run one after the other, each key's lease kept (renewed) from its claim on.
     * In transactional mode a handler that fails rolls its batch back and the others run again without it, so
     * effects outside the transaction can repeat; turn this off to run one delivery per transaction.
     */
    public B batchClaims(boolean batchClaims) {
        this.batchClaims = batchClaims;
        return self();
    }

    /** Most deliveries claimed together with batch claims. Default: the prefetch, at most 100. */
    public B maxBatch(int maxBatch) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("maxBatch must be at least 1, but was " + maxBatch);
        }
        this.maxBatch = maxBatch;
        return self();
    }

    public B retry(RetryPolicy retry) {
        this.retry = Objects.requireNonNull(retry, "retry");
        return self();
    }

    /** What to declare at start. Default: the delay queues and the dead-letter queue, classic. */
    public B topology(Topology topology) {
        this.topology = Objects.requireNonNull(topology, "topology");
        return self();
    }

    /** How long to wait for the confirm of a moved copy before giving the original back. Default 5 s. */
    public B moveTimeout(Duration moveTimeout) {
        this.moveTimeout = Durations.requirePositive(moveTimeout, "moveTimeout");
        return self();
    }

    /** How long {@link OnceConsumer#close()} lets work in hand finish. Default 30 s. */
    public B shutdownTimeout(Duration shutdownTimeout) {
        this.shutdownTimeout = Durations.requirePositive(shutdownTimeout, "shutdownTimeout");
        return self();
    }

    /** The first pause when the store is unreachable, and the longest (doubling in between). */
    public B storeBackoff(Duration initial, Duration max) {
        Durations.requirePositive(initial, "storeBackoff initial");
        Durations.requirePositive(max, "storeBackoff max");
        if (max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("storeBackoff max must not be below initial, but was " + max
                    + " < " + initial);
        }
        this.storeBackoff = initial;
        this.maxStoreBackoff = max;
        return self();
    }

    /** Longest {@code x-once-error} header, in characters. Default 1000. */
    public B maxErrorLength(int maxErrorLength) {
        if (maxErrorLength < 16) {
            throw new IllegalArgumentException("maxErrorLength must be at least 16, but was " + maxErrorLength);
        }
        this.maxErrorLength = maxErrorLength;
        return self();
    }

    /**
     * The clock for pauses, back-offs and confirm deadlines. Default: the system clock, advancing
     * monotonically (a wall-clock step neither stretches nor cuts a pause).
     */
    public B clock(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
        return self();
    }

    /** Takes every setting from {@code other}. */
    B copyFrom(ConsumerOptions<?> other) {
        keyExtractor = other.keyExtractor;
        namespace = other.namespace;
        namespaceOf = other.namespaceOf;
        prefetch = other.prefetch;
        channels = other.channels;
        batchClaims = other.batchClaims;
        maxBatch = other.maxBatch;
        retry = other.retry;
        topology = other.topology;
        moveTimeout = other.moveTimeout;
        shutdownTimeout = other.shutdownTimeout;
        storeBackoff = other.storeBackoff;
        maxStoreBackoff = other.maxStoreBackoff;
        maxErrorLength = other.maxErrorLength;
        clock = other.clock;
        return self();
    }
}
