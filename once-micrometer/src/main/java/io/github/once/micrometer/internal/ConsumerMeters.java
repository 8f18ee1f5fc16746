package io.github.once.micrometer.internal;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.DeadLetterReason;
import io.github.once.rabbitmq.OnceConsumer;
import io.micrometer.core.instrument.Clock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.ToDoubleFunction;

/**
 * The meters of one consumer, fed through {@link ConsumerListener}. Counters are registered at zero for the
 * consumer's namespace when it is made, so the first increase is visible to {@code rate()} and {@code increase()}.
 */
public final class ConsumerMeters implements ConsumerListener {

    private static final ConsumerAction[] ACTIONS = ConsumerAction.values();

    private final MeterRegistry registry;
    private final Clock clock;
    private final String queue;
    private final String namespace;
    private final Counter deliveries;
    private final Counter pauses;
    private final Counter resumes;
    private final DistributionSummary batches;
    private final NamespaceMeters bound;
    private final Map<String, NamespaceMeters> others = new ConcurrentHashMap<>();
    private final Map<String, Counter> retries = new ConcurrentHashMap<>();
    private boolean paused;
    private long pausedSince;
    private long pausedNanos;

    public ConsumerMeters(MeterRegistry registry, String queue, String namespace) {
        this.registry = registry;
        this.clock = registry.config().clock();
        this.queue = queue;
        this.namespace = namespace;
        this.deliveries = counter("once.consumer.deliveries", "Deliveries taken in hand");
        this.pauses = counter("once.consumer.pauses", "Pauses: the store (or the broker, for moves) was unreachable");
        this.resumes = counter("once.consumer.resumes", "Resumptions after a pause");
        this.batches = DistributionSummary.builder("once.consumer.batch.size")
                .description("Deliveries taken in hand together")
                .tags("queue", queue, "namespace", namespace)
                .register(registry);
        Gauge.builder("once.consumer.paused", this, m -> m.isPaused() ? 1 : 0)
                .description("1 while consumption is paused")
                .tags("queue", queue, "namespace", namespace)
                .register(registry);
        FunctionCounter.builder("once.consumer.paused.time", this, ConsumerMeters::pausedSeconds)
                .description("Time spent paused, the pause under way included")
                .baseUnit("seconds")
                .tags("queue", queue, "namespace", namespace)
                .register(registry);
        this.bound = new NamespaceMeters(namespace);
    }

    private Counter counter(String name, String description) {
        return Counter.builder(name)
                .description(description)
                .tags("queue", queue, "namespace", namespace)
                .register(registry);
    }

    /** Registers the gauge of deliveries in flight, read from {@code source} (held weakly, like every gauge's). */
    public static <T> void inFlight(MeterRegistry registry, String queue, String namespace, T source,
                                    ToDoubleFunction<T> deliveries) {
        Gauge.builder("once.consumer.in.flight", source, deliveries)
                .description("Deliveries received and not yet settled")
                .tags("queue", queue, "namespace", namespace)
                .strongReference(!(source instanceof OnceConsumer))
                .register(registry);
    }

    @Override
    public void onDelivery(Delivery delivery, int attempt) {
        deliveries.increment();
    }

    @Override
    public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
        NamespaceMeters m = meters(key);
        m.actions[action.ordinal()].increment();
        if (acks(action)) {
            m.acks.increment();
        }
    }

    /** Whether the delivery was acked: done, or a copy moved elsewhere with a confirm. */
    private static boolean acks(ConsumerAction action) {
        return action != ConsumerAction.REQUEUED && action != ConsumerAction.ABANDONED;
    }

    @Override
    public void onPause(Throwable cause, Duration backoff) {
        pauses.increment();
        synchronized (this) {
            if (!paused) {
                paused = true;
                pausedSince = clock.monotonicTime();
            }
        }
    }

    @Override
    public void onResume() {
        resumes.increment();
        synchronized (this) {
            if (paused) {
                paused = false;
                pausedNanos += clock.monotonicTime() - pausedSince;
            }
        }
    }

    synchronized boolean isPaused() {
        return paused;
    }

    synchronized double pausedSeconds() {
        long nanos = pausedNanos + (paused ? clock.monotonicTime() - pausedSince : 0);
        return nanos / 1e9;
    }

    /**
     * A delivery is being moved to the dead-letter queue for {@code reason}; {@code cause} is the handler's last
     * failure, or null. Called once per dead letter, before the move is confirmed.
     */
    @Override
    public void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable cause,
                             String detail) {
        meters(key).deadLetters[reason.ordinal()].increment();
    }

    /**
     * A delivery is being moved to a delay queue: {@code action} says why (busy, lease lost, failed) and
     * {@code delay} is the back-off level it waits for.
     */
    @Override
    public void onRetry(Delivery delivery, IdempotencyKey key, ConsumerAction action, int nextAttempt,
                        Duration delay, Throwable error) {
        String ns = key == null ? namespace : key.namespace();
        String cause = Names.of(action).replace("retried-", "");
        String level = String.valueOf(delay.toMillis());
        retries.computeIfAbsent(ns + '/' + cause + '/' + level, k -> Counter.builder("once.consumer.retries")
                .description("Delayed retries, by cause and back-off level (the delay in milliseconds)")
                .tags("queue", queue, "namespace", ns, "cause", cause, "level", level)
                .register(registry)).increment();
    }

    /** {@code size} deliveries were taken in hand together (one group; one store call each when batching). */
    @Override
    public void onBatch(int size) {
        batches.record(size);
    }

    private NamespaceMeters meters(IdempotencyKey key) {
        if (key == null || key.namespace().equals(namespace)) {
            return bound;
        }
        return others.computeIfAbsent(key.namespace(), NamespaceMeters::new);
    }

    /** The meters that follow a settled delivery's namespace; they start at zero together. */
    private final class NamespaceMeters {
        final Counter[] actions = new Counter[ACTIONS.length];
        final Counter acks;
        final Counter[] deadLetters = new Counter[DeadLetterReason.values().length];

        NamespaceMeters(String ns) {
            for (ConsumerAction action : ACTIONS) {
                actions[action.ordinal()] = Counter.builder("once.consumer.actions")
                        .description("Settled deliveries, by what the consumer did with them")
                        .tags("queue", queue, "namespace", ns, "action", Names.of(action))
                        .register(registry);
            }
            acks = Counter.builder("once.consumer.acks")
                    .description("Deliveries acked (done, or moved with a confirm)")
                    .tags("queue", queue, "namespace", ns)
                    .register(registry);
            for (DeadLetterReason reason : DeadLetterReason.values()) {
                deadLetters[reason.ordinal()] = Counter.builder("once.consumer.dead.letters")
                        .description("Deliveries moved to the dead-letter queue, by reason")
                        .tags("queue", queue, "namespace", ns, "reason", reason.code())
                        .register(registry);
            }
        }
    }
}
