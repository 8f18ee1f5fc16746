package io.github.once.micrometer;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.ResultCodec;
import io.github.once.StoreUnavailableException;
import io.github.once.Task;
import io.github.once.spi.Lease;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The executor's meters after known traffic through {@link Idempotency} over the in-memory store. */
class ExecutorMetersTest {

    private final MeterRegistry registry = new SimpleMeterRegistry();
    private final OnceMeters meters = OnceMeters.builder(registry).build();
    private final List<AutoCloseable> closeables = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable c : closeables) {
            c.close();
        }
    }

    private Idempotency executor(InMemoryIdempotencyStore store, IdempotencyConfig config) {
        Idempotency once = Idempotency.builder(store).config(config).listener(meters.executor("orders")).build();
        closeables.add(once);
        return once;
    }

    private Idempotency executor() {
        return executor(InMemoryIdempotencyStore.builder().build(), IdempotencyConfig.defaults());
    }

    private static Task<String> task(String id, String payload, io.github.once.Handler<String> handler) {
        return new Task<>(IdempotencyKey.of("orders", id), payload.getBytes(StandardCharsets.UTF_8),
                ResultCodec.utf8(), handler);
    }

    private static Task<String> task(String id) {
        return task(id, "payload", ctx -> "done");
    }

    private double outcomes(String outcome) {
        return registry.get("once.outcomes").tags("namespace", "orders", "outcome", outcome).counter().count();
    }

    private long storeCalls(String operation) {
        return registry.get("once.store.calls").tags("namespace", "orders", "operation", operation).timer().count();
    }

    @Test
    void hundredMessagesWithTenSentTwiceCountTenDuplicates() {
        Idempotency once = executor();
        for (int i = 0; i < 100; i++) {
            once.execute(task("m-" + i));
        }
        for (int i = 0; i < 10; i++) {
            once.execute(task("m-" + i));
        }

        assertThat(outcomes("processed")).isEqualTo(100);
        assertThat(outcomes("duplicate")).isEqualTo(10);
        assertThat(outcomes("busy") + outcomes("conflict") + outcomes("failed") + outcomes("lease-lost")).isZero();
        assertThat(storeCalls("claim")).isEqualTo(110);
        assertThat(storeCalls("complete")).isEqualTo(100);
        assertThat(storeCalls("release")).isZero();
        assertThat(registry.get("once.store.calls").tags("operation", "claim").timer().totalTime(TimeUnit.NANOSECONDS))
                .isPositive();
        assertThat(registry.find("once.store.errors").meters()).isEmpty();
        assertNoKeyInTags("m-");
    }

    @Test
    void everyOtherOutcomeIsCountedUnderItsName() {
        StoreClock clock = new StoreClock();
        InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().clock(clock).build();
        Idempotency once = executor(store, IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(30)).build());

        once.execute(task("reused", "first", ctx -> "done"));
        once.execute(task("reused", "second", ctx -> "done")); // conflict
        once.execute(task("failing", "payload", ctx -> {
            throw new IllegalStateException("boom");
        }));
        AtomicReference<Outcome<String>> inner = new AtomicReference<>();
        once.execute(task("held", "payload", ctx -> {
            inner.set(once.execute(task("held"))); // the key is held by this very execution
            return "done";
        }));
        Outcome<String> lost = once.execute(task("lapsing", "payload", ctx -> {
            clock.advance(Duration.ofMinutes(1)); // the lease lapses; the next claim takes the key over
            once.execute(task("lapsing"));
            return "late";
        }));

        assertThat(inner.get()).isInstanceOf(Outcome.Busy.class);
        assertThat(lost).isInstanceOf(Outcome.LeaseLost.class);
        assertThat(outcomes("conflict")).isEqualTo(1);
        assertThat(outcomes("failed")).isEqualTo(1);
        assertThat(outcomes("busy")).isEqualTo(1);
        assertThat(outcomes("lease-lost")).isEqualTo(1);
        assertThat(outcomes("processed")).isEqualTo(3); // reused, held, and the takeover of lapsing
        assertThat(storeCalls("release")).isEqualTo(1); // the failed handler gave its key back
    }

    @Test
    void batchesAreTimedAndSized() {
        Idempotency once = executor();
        List<Task<String>> batch = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            batch.add(task("b-" + i));
        }
        once.executeAll(batch);
        once.executeAll(batch.subList(0, 3)); // all duplicates: nothing to complete

        assertThat(storeCalls("claim")).isEqualTo(2);
        assertThat(storeCalls("complete")).isEqualTo(1);
        assertThat(registry.get("once.store.batch.size").tags("operation", "claim").summary().totalAmount())
                .isEqualTo(8);
        assertThat(registry.get("once.store.batch.size").tags("operation", "complete").summary().totalAmount())
                .isEqualTo(5);
        assertThat(outcomes("processed")).isEqualTo(5);
        assertThat(outcomes("duplicate")).isEqualTo(3);
    }

    @Test
    void storeErrorsAreCountedByKind() {
        Idempotency once = executor(InMemoryIdempotencyStore.builder().maxRecords(1).build(), IdempotencyConfig.defaults());
        once.execute(task("first"));
        assertThatThrownBy(() -> once.execute(task("second"))).isInstanceOf(io.github.once.StoreFullException.class);

        StoreClock clock = new StoreClock();
        clock.down(true);
        Idempotency unreachable = Idempotency.builder(InMemoryIdempotencyStore.builder().clock(clock).build())
                .listener(meters.executor("orders")).build();
        closeables.add(unreachable);
        assertThatThrownBy(() -> unreachable.execute(task("third"))).isInstanceOf(StoreUnavailableException.class);

        assertThat(registry.get("once.store.errors").tags("operation", "claim", "kind", "full").counter().count())
                .isEqualTo(1);
        assertThat(registry.get("once.store.errors").tags("operation", "claim", "kind", "unavailable").counter()
                .count()).isEqualTo(1);
        assertThat(storeCalls("claim")).isEqualTo(3); // failed calls are timed too
    }

    @Test
    void outcomesFollowTheKeysNamespaceAndStartAtZero() {
        OnceListener listener = meters.executor("orders");
        assertThat(registry.find("once.outcomes").tag("namespace", "orders").counters()).hasSize(7)
                .allSatisfy(c -> assertThat(c.count()).isZero());
        assertThat(registry.get("once.takeovers").tag("namespace", "orders").counter().count()).isZero();

        IdempotencyKey payment = IdempotencyKey.of("payments", "p-1");
        listener.onOutcome(new Outcome.Failed<>(payment, new IllegalStateException()), Duration.ofMillis(1));
        assertThat(registry.get("once.outcomes").tags("namespace", "payments", "outcome", "failed").counter().count())
                .isEqualTo(1);
        assertThat(registry.get("once.outcomes").tags("namespace", "payments", "outcome", "processed").counter().count())
                .isZero();
        listener.onOutcome(new Outcome.CrashLoop<>(payment, 3), Duration.ofMillis(1));
        assertThat(registry.get("once.outcomes").tags("namespace", "payments", "outcome", "crash-loop").counter()
                .count()).isEqualTo(1);
        assertThatThrownBy(() -> meters.executor("not a namespace")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void handlerTakeoverAndRenewalEventsFeedTheirMeters() {
        OnceListener listener = meters.executor("orders");
        IdempotencyKey key = IdempotencyKey.of("orders", "k-1");
        Lease lease = new Lease(key, 7, Instant.EPOCH);

        listener.onHandler(key, Duration.ofMillis(40), null);
        listener.onHandler(key, Duration.ofMillis(60), null);
        listener.onHandler(key, Duration.ofMillis(5), new IllegalStateException());
        listener.onTakeover(lease);
        listener.onRenewal(lease, true, null);
        listener.onRenewal(lease, true, null);
        listener.onRenewal(lease, false, null);
        listener.onRenewal(lease, false, new StoreUnavailableException("down"));

        assertThat(registry.get("once.handler").tags("namespace", "orders", "result", "success").timer()
                .totalTime(TimeUnit.MILLISECONDS)).isEqualTo(100);
        assertThat(registry.get("once.handler").tags("result", "failure").timer().count()).isEqualTo(1);
        assertThat(registry.get("once.takeovers").tag("namespace", "orders").counter().count()).isEqualTo(1);
        assertThat(registry.get("once.lease.renewals").tags("result", "renewed").counter().count()).isEqualTo(2);
        assertThat(registry.get("once.lease.renewals").tags("result", "refused").counter().count()).isEqualTo(1);
        assertThat(registry.get("once.lease.renewals").tags("result", "error").counter().count()).isEqualTo(1);
        assertNoKeyInTags("k-1");
    }

    @Test
    void storeGaugesReadTheirSuppliersAndShowNaNWhenTheyFail() {
        AtomicReference<Long> inProgress = new AtomicReference<>(3L);
        meters.recordsInProgress("orders", inProgress::get)
                .oldestInProgress("orders", () -> Duration.ofSeconds(90));

        assertThat(registry.get("once.store.in.progress").tag("namespace", "orders").gauge().value()).isEqualTo(3);
        assertThat(registry.get("once.store.oldest.in.progress").timeGauge().value(TimeUnit.SECONDS)).isEqualTo(90);
        inProgress.set(null);
        assertThat(registry.get("once.store.in.progress").gauge().value()).isNaN();
        meters.recordsInProgress("payments", () -> {
            throw new StoreUnavailableException("down");
        });
        assertThat(registry.get("once.store.in.progress").tag("namespace", "payments").gauge().value()).isNaN();
    }

    private void assertNoKeyInTags(String idPrefix) {
        for (Meter meter : registry.getMeters()) {
            for (Tag tag : meter.getId().getTags()) {
                assertThat(tag.getValue()).as("tag %s of %s", tag.getKey(), meter.getId().getName())
                        .doesNotStartWith(idPrefix);
            }
        }
    }
}
