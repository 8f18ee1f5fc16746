package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;

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
    boolean batchClaims;
    boolean pipelined;
    int maxBatch = 0;
    RetryPolicy retry = RetryPolicy.defaults();
    Topology topology = Topology.retryQueuesOnly(QueueType.CLASSIC);
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
     * Claim the deliveries in hand with one store call ({@code executeAll}) instead of one per message.
     * Later claims of a batch wait for the handlers before them, so keep batches well inside the lease. Unless the
     * consumer is pipelined, each delivery's key is found as it arrives (on the connection's dispatch thread, so a
     * key extractor runs there) and goes to the executor as a hint ({@code IdempotentExecutor.lookAhead}): a
     * tiered store reads its front for it then, so the claim does not wait for that read. The hint changes no
     * outcome; other stores ignore it.
     */
    public B batchClaims(boolean batchClaims) {
        this.batchClaims = batchClaims;
        return self();
    }

    /**
     * Run each channel as a pipeline: the deliveries in hand are claimed as soon as they arrive, in one
     * asynchronous store call per group (the deliveries that came while the previous claim call was in flight,
     * {@link #maxBatch} at most; no linger, no waiting for a full batch); each handler runs as soon as its claim
     * answers, while the next claims and the completions of earlier handlers are in flight; each delivery is
     * acked as soon as its completion is recorded. Handlers of one channel still run one at a time, in delivery
     * order; a delivery whose key repeats one still in flight on the channel is claimed only after that one's
     * outcome, so it is a duplicate of it, never a second run. The guarantees are those of the other modes.
     *
     * <p>With once-jdbc's transactional scope it is group commit: the deliveries in hand when the channel's thread
     * is free run as one batch in one transaction (as with {@link #batchClaims}), which commits on another thread
     * while the next group is claimed and run in a transaction of its own; each delivery is acked once its group
     * committed. A channel then holds up to two connections, and a handler does not see the effects of the group
     * ahead of it until that group commits (as with several channels).
     *
     * <p>Needs an {@code Idempotency} (not a wrapper around one): {@link OnceConsumer.Builder#build()} refuses
     * other executors. Takes precedence over {@link #batchClaims}. Default false.
     */
    public B pipelined(boolean pipelined) {
        this.pipelined = pipelined;
        return self();
    }

    /**
     * Most deliveries claimed together with batch claims, or in one claim or completion call of a pipeline.
     * Default: the prefetch, at most 100.
     */
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
        pipelined = other.pipelined;
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
