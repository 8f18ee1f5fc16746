package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import java.time.Clock;
import java.time.Duration;
import java.util.function.Function;

/**
 * Immutable settings of an {@link OnceConsumer}: everything but the connection, the queue, the executor, the
 * handler and the listener. Start from {@link #defaults()}, {@link #builder()} or {@link #from(ConsumerConfig)};
 * {@link OnceConsumer.Builder} takes the same settings one by one, or a whole config with
 * {@link OnceConsumer.Builder#config(ConsumerConfig)} (for example one bound from application properties).
 */
public final class ConsumerConfig {

    private static final ConsumerConfig DEFAULTS = new Builder().build();

    /** A copy of the builder it was built from, never handed out, so never changed. */
    private final Builder values;

    private ConsumerConfig(Builder b) {
        this.values = new Builder().copyFrom(b);
    }

    /**
     * Key from {@code message_id}, namespace = the queue name, prefetch 50, one channel, one claim at a time,
     * {@link RetryPolicy#defaults()}, delay and dead-letter queues declared (classic), moves confirmed within 5 s,
     * shutdown within 30 s, store back-off 200 ms doubling to 10 s, errors cut to 1000 characters, the system
     * clock.
     */
    public static ConsumerConfig defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static Builder from(ConsumerConfig base) {
        return new Builder().copyFrom(base.values);
    }

    /** The settings, for a builder to copy. */
    ConsumerOptions<?> values() {
        return values;
    }

    public KeyExtractor keyExtractor() {
        return values.keyExtractor;
    }

    /** The fixed key namespace, or null: the per-message one if set, else the queue name. */
    public String namespace() {
        return values.namespace;
    }

    /** The key namespace per message, or null when it is fixed. */
    public Function<Delivery, String> namespaceOf() {
        return values.namespaceOf;
    }

    public int prefetch() {
        return values.prefetch;
    }

    public int channels() {
        return values.channels;
    }

    public boolean batchClaims() {
        return values.batchClaims;
    }

    /** The configured most deliveries taken together; 0 means the default, min(prefetch, 100). */
    public int maxBatch() {
        return values.maxBatch;
    }

    /**
     * How many deliveries one executor call takes: 1 without batch claims, else the resolved maximum.
     */
    public int batchSize() {
        if (!values.batchClaims) {
            return 1;
        }
        return values.maxBatch > 0 ? Math.min(values.maxBatch, values.prefetch) : Math.min(values.prefetch, 100);
    }

    public RetryPolicy retry() {
        return values.retry;
    }

    public Topology topology() {
        return values.topology;
    }

    public Duration moveTimeout() {
        return values.moveTimeout;
    }

    public Duration shutdownTimeout() {
        return values.shutdownTimeout;
    }

    public Duration storeBackoff() {
        return values.storeBackoff;
    }

    public Duration maxStoreBackoff() {
        return values.maxStoreBackoff;
    }

    public int maxErrorLength() {
        return values.maxErrorLength;
    }

    /** The clock the consumer measures pauses, back-offs and confirm deadlines with. */
    public Clock clock() {
        return values.clock;
    }

    @Override
    public String toString() {
        Builder v = values;
        return "ConsumerConfig[namespace=" + (v.namespaceOf != null ? "<per message>" : v.namespace)
                + ", prefetch=" + v.prefetch + ", channels=" + v.channels + ", batchClaims=" + v.batchClaims
                + ", maxBatch=" + v.maxBatch + ", retry=" + v.retry + ", topology=" + v.topology
                + ", moveTimeout=" + v.moveTimeout + ", shutdownTimeout=" + v.shutdownTimeout
                + ", storeBackoff=" + v.storeBackoff + ".." + v.maxStoreBackoff
                + ", maxErrorLength=" + v.maxErrorLength + ", clock=" + v.clock + "]";
    }

    /** The settings one by one, with their defaults and checks. */
    public static final class Builder extends ConsumerOptions<Builder> {

        private Builder() {
        }

        @Override
        Builder self() {
            return this;
        }

        public ConsumerConfig build() {
            return new ConsumerConfig(this);
        }
    }
}
