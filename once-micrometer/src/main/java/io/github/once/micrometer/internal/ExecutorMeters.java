package io.github.once.micrometer.internal;

import io.github.once.IdempotencyKey;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.spi.Lease;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The meters of one executor, fed through {@link OnceListener}. Counters are registered at zero for the
 * executor's namespace when it is made, so the first increase is visible to {@code rate()} and {@code increase()}.
 *
 * <p>Besides outcomes and store calls it times handlers ({@link #onHandler}), counts takeovers of lapsed leases
 * ({@link #onTakeover}) and renewals by result ({@link #onRenewal}).
 */
public final class ExecutorMeters implements OnceListener {

    private static final Duration FASTEST_STORE_CALL = Duration.ofNanos(50_000);
    private static final Duration SLOWEST_STORE_CALL = Duration.ofSeconds(10);
    private static final Duration SLOWEST_HANDLER = Duration.ofMinutes(5);

    private final MeterRegistry registry;
    private final String namespace;
    private final boolean histograms;
    private final NamespaceMeters bound;
    private final Map<String, NamespaceMeters> others = new ConcurrentHashMap<>();
    private final Timer[] storeCalls = new Timer[OnceListener.StoreOperation.values().length];
    private final Map<String, Counter> storeErrors = new ConcurrentHashMap<>();
    private final DistributionSummary claimBatch;
    private final DistributionSummary completeBatch;

    public ExecutorMeters(MeterRegistry registry, String namespace, boolean histograms) {
        this.registry = registry;
        this.namespace = namespace;
        this.histograms = histograms;
        for (OnceListener.StoreOperation op : OnceListener.StoreOperation.values()) {
            storeCalls[op.ordinal()] = Timer.builder("once.store.calls")
                    .description("Store calls, by operation, failed ones included")
                    .tags("namespace", namespace, "operation", Names.operation(op))
                    .publishPercentileHistogram(histograms)
                    .minimumExpectedValue(FASTEST_STORE_CALL)
                    .maximumExpectedValue(SLOWEST_STORE_CALL)
                    .register(registry);
        }
        this.claimBatch = batchSize(OnceListener.StoreOperation.CLAIM);
        this.completeBatch = batchSize(OnceListener.StoreOperation.COMPLETE);
        this.bound = new NamespaceMeters(namespace);
    }

    private DistributionSummary batchSize(OnceListener.StoreOperation op) {
        return DistributionSummary.builder("once.store.batch.size")
                .description("Keys per claim or completion call")
                .tags("namespace", namespace, "operation", Names.operation(op))
                .register(registry);
    }

    /** The namespace this executor's store calls are tagged with. */
    public String namespace() {
        return namespace;
    }

    @Override
    public void onOutcome(Outcome<?> outcome, Duration elapsed) {
        meters(outcome.key().namespace()).outcomes[Names.outcomeIndex(outcome)].increment();
    }

    @Override
    public void onStoreCall(OnceListener.StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
        storeCalls[operation.ordinal()].record(elapsed);
        if (operation == OnceListener.StoreOperation.CLAIM) {
            claimBatch.record(keys);
        } else if (operation == OnceListener.StoreOperation.COMPLETE) {
            completeBatch.record(keys);
        }
        if (failure != null) {
            String kind = Names.errorKind(failure);
            storeErrors.computeIfAbsent(operation.name() + '/' + kind, k -> Counter.builder("once.store.errors")
                    .description("Store calls that failed, by kind: unavailable, full or rejected")
                    .tags("namespace", namespace, "operation", Names.operation(operation), "kind", kind)
                    .register(registry)).increment();
        }
    }

    /**
     * A handler returned ({@code failure} null) or threw, after running for {@code elapsed}. Called on the
     * executing thread right after the handler, before its completion is recorded.
     */
    @Override
    public void onHandler(IdempotencyKey key, Duration elapsed, Throwable failure) {
        NamespaceMeters m = meters(key.namespace());
        (failure == null ? m.handlerSucceeded() : m.handlerFailed()).record(elapsed);
    }

    /**
     * A claim took over {@code lease}'s key from an owner whose lease had lapsed without completing or releasing
     * it: that owner most likely died while its handler ran.
     */
    @Override
    public void onTakeover(Lease lease) {
        meters(lease.key().namespace()).takeovers.increment();
    }

    /**
     * A renewal of {@code lease} ended: renewed, refused ({@code renewed} false, no failure: the lease was taken
     * over) or failed ({@code failure} set: the store could not be asked; the renewal is tried again).
     */
    @Override
    public void onRenewal(Lease lease, boolean renewed, Throwable failure) {
        NamespaceMeters m = meters(lease.key().namespace());
        (failure != null ? m.renewalErrors : renewed ? m.renewed : m.renewalsRefused).increment();
    }

    private NamespaceMeters meters(String ns) {
        return ns.equals(namespace) ? bound : others.computeIfAbsent(ns, NamespaceMeters::new);
    }

    /** The meters that follow a key's namespace; the counters start at zero together. */
    private final class NamespaceMeters {
        final String ns;
        final Counter[] outcomes = new Counter[Names.OUTCOMES.length];
        final Counter takeovers;
        final Counter renewed;
        final Counter renewalsRefused;
        final Counter renewalErrors;
        private volatile Timer succeeded;
        private volatile Timer failed;

        NamespaceMeters(String ns) {
            this.ns = ns;
            for (int i = 0; i < outcomes.length; i++) {
                outcomes[i] = Counter.builder("once.outcomes")
                        .description("Executions by outcome")
                        .tags("namespace", ns, "outcome", Names.OUTCOMES[i])
                        .register(registry);
            }
            takeovers = Counter.builder("once.takeovers")
                    .description("Claims that took a key over from a lapsed lease")
                    .tag("namespace", ns)
                    .register(registry);
            renewed = renewals("renewed");
            renewalsRefused = renewals("refused");
            renewalErrors = renewals("error");
        }

        private Counter renewals(String result) {
            return Counter.builder("once.lease.renewals")
                    .description("Lease renewals by result: renewed, refused (taken over) or error")
                    .tags("namespace", ns, "result", result)
                    .register(registry);
        }

        Timer handlerSucceeded() {
            Timer t = succeeded;
            if (t == null) {
                succeeded = t = handler("success");
            }
            return t;
        }

        Timer handlerFailed() {
            Timer t = failed;
            if (t == null) {
                failed = t = handler("failure");
            }
            return t;
        }

        private Timer handler(String result) {
            // Registered on first use (a histogram is many series); registering twice returns the same timer.
            return Timer.builder("once.handler")
                    .description("Handler run time, by result")
                    .tags("namespace", ns, "result", result)
                    .publishPercentileHistogram(histograms)
                    .maximumExpectedValue(SLOWEST_HANDLER)
                    .register(registry);
        }
    }
}
