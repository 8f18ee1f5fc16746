package io.github.once.cli.demo;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;
import io.github.once.spi.IdempotencyStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** A Once row: {@code OnceConsumer} with one store (or the transactional JDBC executor). */
final class OnceStyle implements ConsumerStyle {

    /**
     * A short lease where a consumer dies holding its claim, so the claim lapses within the cell and the
     * replacement takes over; renewed every third while working.
     */
    static final IdempotencyConfig CONFIG = IdempotencyConfig.builder()
            .leaseDuration(Duration.ofSeconds(1))
            .retention(Duration.ofMinutes(10))
            .build();
    /**
     * Where every consumer lives (it may lose the broker, not the store), the lease must outlast the work with
     * room for a starved renewal: a lease that lapses under a consumer still working lets a second one take the
     * key over and repeat the effect, which is the documented window of a record written after the handler, not
     * what these columns show. On a loaded machine a 1 s lease renewed every third could lapse so.
     */
    static final IdempotencyConfig LIVING_CONFIG = IdempotencyConfig.from(CONFIG)
            .leaseDuration(Duration.ofSeconds(15))
            .build();

    /** The lease for a cell: short only where a consumer dies holding its claim. */
    static IdempotencyConfig config(Scenario scenario) {
        return scenario == Scenario.CRASH_MID_WORK ? CONFIG : LIVING_CONFIG;
    }

    record Executor(Idempotency executor, SeverableStore severable) {
    }

    private final String code;
    private final String label;
    private final Function<IdempotencyConfig, Executor> executors;
    private final Function<String, EffectSink> effects;
    private final boolean transactional;
    private final RetryPolicy retry;
    private final AutoCloseable resource;

    private OnceStyle(String code, String label, Function<IdempotencyConfig, Executor> executors, Function<String, EffectSink> effects,
            boolean transactional, RetryPolicy retry, AutoCloseable resource) {
        this.code = code;
        this.label = label;
        this.executors = executors;
        this.effects = effects;
        this.transactional = transactional;
        this.retry = retry;
        this.resource = resource;
    }

    /**
     * Once over a store, with the record written after the handler ({@code Idempotency}). The store is the caller's
     * to close (after it deleted the run's records through it).
     */
    static OnceStyle withStore(String where, IdempotencyStore store, RetryPolicy retry) {
        return new OnceStyle("once-" + where, "Once, " + where + " store", config -> {
            SeverableStore severable = new SeverableStore(store);
            return new Executor(Idempotency.builder(severable).config(config).build(), severable);
        }, id -> EffectSink.ledger(), false, retry, null);
    }

    /** Once with an executor whose effect commits with the record; effects land in {@code sink}. */
    static OnceStyle transactional(String where, Function<IdempotencyConfig, Idempotency> executor,
            Function<String, EffectSink> sink, RetryPolicy retry, AutoCloseable resource) {
        return new OnceStyle("once-" + where + "-tx", "Once, " + where + " transactional",
                config -> new Executor(executor.apply(config), null), sink, true, retry, resource);
    }

    /**
     * The retry policy for a broker: delay queues where the broker takes their arguments, else requeue to the
     * tail (the embedded broker refuses x-message-ttl and x-dead-letter-*). Three attempts either way.
     */
    static RetryPolicy retryFor(boolean embedded) {
        return embedded
                ? RetryPolicy.builder().maxAttempts(3).backoff(Duration.ofMillis(200)).strategy(RetryPolicy.Strategy.REQUEUE_TAIL)
                        .build()
                : RetryPolicy.builder().maxAttempts(3).backoff(Duration.ofMillis(200), Duration.ofSeconds(1))
                        .strategy(RetryPolicy.Strategy.DELAY_QUEUES).build();
    }

    Executor newExecutor(Scenario scenario) {
        return executors.apply(config(scenario));
    }

    boolean transactional() {
        return transactional;
    }

    RetryPolicy retry() {
        return retry;
    }

    @Override
    public String code() {
        return code;
    }

    @Override
    public String label() {
        return label;
    }

    @Override
    public boolean once() {
        return true;
    }

    @Override
    public EffectSink effects(String cellId) {
        return effects.apply(cellId);
    }

    @Override
    public ConsumerProcess start(Cell cell, String name, boolean first) throws Exception {
        return OnceProcess.start(cell, this, name, first);
    }

    @Override
    public List<String> retryQueues(String queue) {
        List<String> queues = new ArrayList<>();
        if (retry.strategy() == RetryPolicy.Strategy.DELAY_QUEUES) {
            for (Duration level : retry.backoff()) {
                queues.add(Topology.delayQueue(queue, level));
            }
        }
        return queues;
    }

    @Override
    public String deadLetterQueue(String queue) {
        return Topology.deadLetterQueue(queue);
    }

    @Override
    public void close() {
        if (resource != null) {
            try {
                resource.close();
            } catch (Exception e) {
                // closing a demo store: nothing to recover
            }
        }
    }
}
