package io.github.once.micrometer;

import io.github.once.IdempotencyKey;
import io.github.once.OnceListener;
import io.github.once.micrometer.internal.ConsumerMeters;
import io.github.once.micrometer.internal.ExecutorMeters;
import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.OnceConsumer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * Binds Once to a Micrometer registry: {@link #executor(String)} gives the listener for an executor,
 * {@link #consumer(String)} the listener for a consumer. Every meter is tagged with the key namespace (never the
 * key) and, for the consumer's meters, the queue. The meters and their names are listed in docs/observability.md.
 *
 * <pre>{@code
 * OnceMeters meters = OnceMeters.builder(registry).build();
 * Idempotency once = Idempotency.builder(store).listener(meters.executor("orders")).build();
 * OnceConsumer consumer = OnceConsumer.builder(connection, "orders", once).listener(meters.consumer("orders"))...build();
 * meters.inFlight(consumer); // the in-flight gauge
 * }</pre>
 */
public final class OnceMeters {

    private final MeterRegistry registry;
    private final boolean histograms;

    private OnceMeters(Builder b) {
        this.registry = b.registry;
        this.histograms = b.histograms;
    }

    /** Meters on {@code registry}; by default with percentile histograms on the store and handler timers. */
    public static Builder builder(MeterRegistry registry) {
        return new Builder(registry);
    }

    /**
     * The listener for one executor ({@code Idempotency.builder(store).listener(...)}). Outcomes are tagged
     * with each key's namespace; store calls, which name no key, with {@code namespace}: the namespace the
     * executor serves (or a label of your choice for an executor shared by several).
     */
    public OnceListener executor(String namespace) {
        return new ExecutorMeters(registry, checkedNamespace(namespace), histograms);
    }

    /** The listener for the consumer of {@code queue} whose namespace is the queue name (the consumer's default). */
    public ConsumerListener consumer(String queue) {
        return consumer(queue, queue);
    }

    /**
     * The listener for the consumer of {@code queue}. Settled deliveries are tagged with their key's namespace;
     * events that name no key (deliveries, pauses) with {@code namespace}.
     */
    public ConsumerListener consumer(String queue, String namespace) {
        if (queue == null || queue.isBlank()) {
            throw new IllegalArgumentException("queue must not be blank, but was '" + queue + "'");
        }
        return new ConsumerMeters(registry, queue, checkedNamespace(namespace));
    }

    /**
     * A gauge of {@code consumer}'s deliveries in flight (received and not yet settled), tagged with its queue and
     * namespace (the fixed one, else the queue's name). The consumer is held weakly, like every gauge's source.
     */
    public OnceMeters inFlight(OnceConsumer consumer) {
        ConsumerConfig config = Objects.requireNonNull(consumer, "consumer").config();
        String namespace = config.namespace() != null ? config.namespace() : consumer.queue();
        ConsumerMeters.inFlight(registry, consumer.queue(), checkedNamespace(namespace), consumer, OnceConsumer::inFlight);
        return this;
    }

    /**
     * A gauge of the deliveries in flight of a consumer Once does not run itself (once-spring-rabbit's advice hands
     * its count per queue), read from {@code deliveries} at every scrape.
     */
    public OnceMeters inFlight(String queue, String namespace, IntSupplier deliveries) {
        Objects.requireNonNull(deliveries, "deliveries");
        ConsumerMeters.inFlight(registry, queue, checkedNamespace(namespace), deliveries, IntSupplier::getAsInt);
        return this;
    }

    /**
     * A gauge of the records in progress in {@code namespace}, read from {@code count} at every scrape: keep it
     * cheap (a store inspector's count, or a value refreshed elsewhere). A supplier that fails reads as NaN.
     */
    public OnceMeters recordsInProgress(String namespace, Supplier<? extends Number> count) {
        Objects.requireNonNull(count, "count");
        Gauge.builder("once.store.in.progress", () -> read(count))
                .description("Records in progress (claimed, not completed) in the store")
                .tag("namespace", checkedNamespace(namespace))
                .strongReference(true)
                .register(registry);
        return this;
    }

    /** A gauge of the age of the oldest record in progress in {@code namespace}, read at every scrape. */
    public OnceMeters oldestInProgress(String namespace, Supplier<Duration> age) {
        Objects.requireNonNull(age, "age");
        TimeGauge.builder("once.store.oldest.in.progress", () -> read(() -> {
                    Duration d = age.get();
                    return d == null ? 0 : d.toNanos() / 1e9;
                }), TimeUnit.SECONDS)
                .description("Age of the oldest record in progress in the store")
                .tag("namespace", checkedNamespace(namespace))
                .strongReference(true)
                .register(registry);
        return this;
    }

    private static double read(Supplier<? extends Number> supplier) {
        try {
            Number n = supplier.get();
            return n == null ? Double.NaN : n.doubleValue();
        } catch (RuntimeException e) {
            return Double.NaN; // the store did not answer: no value rather than a wrong one
        }
    }

    private static String checkedNamespace(String namespace) {
        IdempotencyKey.of(Objects.requireNonNull(namespace, "namespace"), "check"); // the key rules bound it
        return namespace;
    }

    /** Builds {@link OnceMeters}; the registry is the one setting without a default. */
    public static final class Builder {
        private final MeterRegistry registry;
        private boolean histograms = true;

        private Builder(MeterRegistry registry) {
            this.registry = Objects.requireNonNull(registry, "registry");
        }

        /**
         * Whether the store-call and handler timers publish percentile histograms (for {@code histogram_quantile}
         * in Prometheus). Default true; turn off to save series when percentiles are not needed.
         */
        public Builder percentileHistograms(boolean histograms) {
            this.histograms = histograms;
            return this;
        }

        public OnceMeters build() {
            return new OnceMeters(this);
        }
    }
}
