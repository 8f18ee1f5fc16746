package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.spi.Durations;

import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * Immutable settings of an {@link OnceConsumer}: everything but the connection, the queue, the executor, the
 * handler and the listener. Start from {@link #defaults()}, {@link #custom()} or {@link #from(ConsumerConfig)};
 * {@link OnceConsumer.Builder} has a shortcut for each setting and {@link OnceConsumer.Builder#config} takes a
 * whole one (for example bound from application properties).
 */
public final class ConsumerConfig {

    private static final ConsumerConfig DEFAULTS = new Builder().build();

    private final KeyExtractor keyExtractor;
    private final String namespace;
    private final Function<Delivery, String> namespaceOf;
    private final int prefetch;
    private final int channels;
    private final boolean batchClaims;
    private final int maxBatch;
    private final RetryPolicy retry;
    private final Topology topology;
    private final Duration moveTimeout;
    private final Duration shutdownTimeout;
    private final Duration storeBackoff;
    private final Duration maxStoreBackoff;
    private final int maxErrorLength;
    private final Clock clock;

    private ConsumerConfig(Builder b) {
        this.keyExtractor = b.keyExtractor;
        this.namespace = b.namespace;
        this.namespaceOf = b.namespaceOf;
        this.prefetch = b.prefetch;
        this.channels = b.channels;
        this.batchClaims = b.batchClaims;
        this.maxBatch = b.maxBatch;
        this.retry = b.retry;
        this.topology = b.topology;
        this.moveTimeout = b.moveTimeout;
        this.shutdownTimeout = b.shutdownTimeout;
        this.storeBackoff = b.storeBackoff;
        this.maxStoreBackoff = b.maxStoreBackoff;
        this.maxErrorLength = b.maxErrorLength;
        this.clock = b.clock;
    }

    /**
     * Key from {@code message_id}, namespace = the queue name, prefetch 50, one channel, one claim at a time,
     * {@link RetryPolicy#defaults()}, delay and dead-letter queues declared (classic), moves confirmed within 5 s,
     * shutdown within 30 s, store back-off 200 ms doubling to 10 s, errors cut to 1000 characters.
     */
    public static ConsumerConfig defaults() {
        return DEFAULTS;
    }

    public static Builder custom() {
        return new Builder();
    }

    public static Builder from(ConsumerConfig base) {
        Builder b = new Builder();
        b.keyExtractor = base.keyExtractor;
        b.namespace = base.namespace;
        b.namespaceOf = base.namespaceOf;
        b.prefetch = base.prefetch;
        b.channels = base.channels;
        b.batchClaims = base.batchClaims;
        b.maxBatch = base.maxBatch;
        b.retry = base.retry;
        b.topology = base.topology;
        b.moveTimeout = base.moveTimeout;
        b.shutdownTimeout = base.shutdownTimeout;
        b.storeBackoff = base.storeBackoff;
        b.maxStoreBackoff = base.maxStoreBackoff;
        b.maxErrorLength = base.maxErrorLength;
        b.clock = base.clock;
        return b;
    }

    public KeyExtractor keyExtractor() {
        return keyExtractor;
    }

    /** The fixed key namespace, or null: the per-message one if set, else the queue name. */
    public String namespace() {
        return namespace;
    }

    /** The key namespace per message, or null when it is fixed. */
    public Function<Delivery, String> namespaceOf() {
        return namespaceOf;
    }

    public int prefetch() {
        return prefetch;
    }

    public int channels() {
        return channels;
    }

    public boolean batchClaims() {
        return batchClaims;
    }

    /** The configured most deliveries taken together; 0 means the default, min(prefetch, 100). */
    public int maxBatch() {
        return maxBatch;
    }

    /** How many deliveries one executor call takes: 1 without batch claims, else the resolved maximum. */
    public int batchSize() {
        if (!batchClaims) {
            return 1;
        }
        return maxBatch > 0 ? Math.min(maxBatch, prefetch) : Math.min(prefetch, 100);
    }

    public RetryPolicy retry() {
        return retry;
    }

    public Topology topology() {
        return topology;
    }

    public Duration moveTimeout() {
        return moveTimeout;
    }

    public Duration shutdownTimeout() {
        return shutdownTimeout;
    }

    public Duration storeBackoff() {
        return storeBackoff;
    }

    public Duration maxStoreBackoff() {
        return maxStoreBackoff;
    }

    public int maxErrorLength() {
        return maxErrorLength;
    }

    /** The clock the consumer measures pauses, back-offs and confirm deadlines with. */
    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "ConsumerConfig[namespace=" + (namespaceOf != null ? "<per message>" : namespace)
                + ", prefetch=" + prefetch + ", channels=" + channels + ", batchClaims=" + batchClaims
                + ", maxBatch=" + maxBatch + ", retry=" + retry + ", topology=" + topology
                + ", moveTimeout=" + moveTimeout + ", shutdownTimeout=" + shutdownTimeout
                + ", storeBackoff=" + storeBackoff + ".." + maxStoreBackoff + ", maxErrorLength=" + maxErrorLength
                + "]";
    }

    public static final class Builder {
        private KeyExtractor keyExtractor = KeyExtractor.messageId();
        private String namespace;
        private Function<Delivery, String> namespaceOf;
        private int prefetch = 50;
        private int channels = 1;
        private boolean batchClaims;
        private int maxBatch = 0;
        private RetryPolicy retry = RetryPolicy.defaults();
        private Topology topology = Topology.retryQueuesOnly(QueueType.CLASSIC);
        private Duration moveTimeout = Duration.ofSeconds(5);
        private Duration shutdownTimeout = Duration.ofSeconds(30);
        private Duration storeBackoff = Duration.ofMillis(200);
        private Duration maxStoreBackoff = Duration.ofSeconds(10);
        private int maxErrorLength = 1000;
        private Clock clock = MonotonicClock.SYSTEM;

        private Builder() {
        }

        /** Where the idempotency id comes from. Default: the {@code message_id} property. */
        public Builder keyExtractor(KeyExtractor keys) {
            this.keyExtractor = Objects.requireNonNull(keys, "keyExtractor");
            return this;
        }

        /** The key namespace for every message. Default: the queue name. */
        public Builder namespace(String namespace) {
            IdempotencyKey.of(Objects.requireNonNull(namespace, "namespace"), "check"); // validates the namespace
            this.namespace = namespace;
            this.namespaceOf = null;
            return this;
        }

        /** The key namespace per message, for example by its {@code type} property. */
        public Builder namespace(Function<Delivery, String> namespace) {
            this.namespaceOf = Objects.requireNonNull(namespace, "namespace");
            this.namespace = null;
            return this;
        }

        /** Unacked deliveries per channel ({@code basic.qos}). Default 50. */
        public Builder prefetch(int prefetch) {
            if (prefetch < 1 || prefetch > 65535) {
                throw new IllegalArgumentException("prefetch must be 1 to 65535, but was " + prefetch);
            }
            this.prefetch = prefetch;
            return this;
        }

        /** Channels consuming in parallel, each with its own thread. Default 1. */
        public Builder channels(int channels) {
            if (channels < 1 || channels > 256) {
                throw new IllegalArgumentException("channels must be 1 to 256, but was " + channels);
            }
            this.channels = channels;
            return this;
        }

        /**
         * Claim the deliveries in hand with one store call ({@code executeAll}) instead of one per message.
         * Later claims of a batch wait for the handlers before them, so keep batches well inside the lease.
         */
        public Builder batchClaims(boolean batchClaims) {
            this.batchClaims = batchClaims;
            return this;
        }

        /** Most deliveries claimed together with batch claims. Default: the prefetch, at most 100. */
        public Builder maxBatch(int maxBatch) {
            if (maxBatch < 1) {
                throw new IllegalArgumentException("maxBatch must be at least 1, but was " + maxBatch);
            }
            this.maxBatch = maxBatch;
            return this;
        }

        public Builder retry(RetryPolicy retry) {
            this.retry = Objects.requireNonNull(retry, "retry");
            return this;
        }

        /** What to declare at start. Default: the delay queues and the dead-letter queue, classic. */
        public Builder topology(Topology topology) {
            this.topology = Objects.requireNonNull(topology, "topology");
            return this;
        }

        /** How long to wait for the confirm of a moved copy before giving the original back. Default 5 s. */
        public Builder moveTimeout(Duration moveTimeout) {
            this.moveTimeout = Durations.requirePositive(moveTimeout, "moveTimeout");
            return this;
        }

        /** How long {@link OnceConsumer#close()} lets work in hand finish. Default 30 s. */
        public Builder shutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = Durations.requirePositive(shutdownTimeout, "shutdownTimeout");
            return this;
        }

        /** The first pause when the store is unreachable, and the longest (doubling in between). */
        public Builder storeBackoff(Duration initial, Duration max) {
            Durations.requirePositive(initial, "storeBackoff initial");
            Durations.requirePositive(max, "storeBackoff max");
            if (max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("storeBackoff max must not be below initial, but was " + max
                        + " < " + initial);
            }
            this.storeBackoff = initial;
            this.maxStoreBackoff = max;
            return this;
        }

        /** Longest {@code x-once-error} header, in characters. Default 1000. */
        public Builder maxErrorLength(int maxErrorLength) {
            if (maxErrorLength < 16) {
                throw new IllegalArgumentException("maxErrorLength must be at least 16, but was " + maxErrorLength);
            }
            this.maxErrorLength = maxErrorLength;
            return this;
        }

        /**
         * The clock for pauses, back-offs and confirm deadlines. Default: the system clock, advancing
         * monotonically (a wall-clock step neither stretches nor cuts a pause).
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public ConsumerConfig build() {
            return new ConsumerConfig(this);
        }
    }
}
