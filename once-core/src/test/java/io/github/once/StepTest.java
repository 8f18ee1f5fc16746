package io.github.once;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Steps in the default scope: each its own record, done once per message key and step name. */
class StepTest {

    private final InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().build();
    private final Idempotency once = Idempotency.builder(store).build();
    private final IdempotencyKey order = IdempotencyKey.of("orders", "order-7");

    @AfterEach
    void close() {
        once.close();
    }

    @Test
    @DisplayName("when a later step fails, the retry skips the steps already done and returns their stored results")
    void retrySkipsDoneSteps() {
        AtomicInteger reserved = new AtomicInteger();
        AtomicInteger charged = new AtomicInteger();
        AtomicInteger attempts = new AtomicInteger();
        List<String> seen = new ArrayList<>();
        Handler<String> handler = ctx -> {
            String reservation = ctx.step("reserve", () -> "reservation-" + reserved.incrementAndGet());
            seen.add(reservation);
            String charge = ctx.step("charge", () -> {
                if (attempts.incrementAndGet() < 3) {
                    throw new IllegalStateException("payment service down");
                }
                return "charge-" + charged.incrementAndGet();
            });
            return reservation + "/" + charge;
        };

        Outcome<String> first = once.execute(order, null, ResultCodec.utf8(), handler);
        Outcome<String> second = once.execute(order, null, ResultCodec.utf8(), handler);
        Outcome<String> third = once.execute(order, null, ResultCodec.utf8(), handler);
        Outcome<String> fourth = once.execute(order, null, ResultCodec.utf8(), handler);

        assertThat(first).isInstanceOf(Outcome.Failed.class);
        assertThat(second).isInstanceOf(Outcome.Failed.class);
        assertThat(third).isInstanceOf(Outcome.Processed.class);
        assertThat(((Outcome.Processed<String>) third).result()).isEqualTo("reservation-1/charge-1");
        assertThat(fourth).isInstanceOf(Outcome.Duplicate.class);
        assertThat(reserved).hasValue(1);
        assertThat(charged).hasValue(1);
        assertThat(seen).containsExactly("reservation-1", "reservation-1", "reservation-1");
        assertThat(OneKey.find(store, order.forStep("reserve")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(OneKey.find(store, order.forStep("charge")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    @DisplayName("a step that throws releases its own claim, and the message's claim is released too")
    void throwingStepReleasesItsClaim() {
        Outcome<String> failed = once.execute(order, null, ResultCodec.utf8(),
                ctx -> ctx.step("charge", () -> {
                    throw new IllegalStateException("declined");
                }));

        assertThat(failed).isInstanceOf(Outcome.Failed.class);
        assertThat(((Outcome.Failed<String>) failed).cause()).hasMessage("declined");
        ClaimRequest again = new ClaimRequest(order.forStep("charge"), null, Duration.ofSeconds(5), Duration.ofHours(1));
        assertThat(OneKey.claim(store, again)).as("the step's key is free at once").isInstanceOf(ClaimResult.Acquired.class);
    }

    @Test
    @DisplayName("the same step name twice in one message runs once; results keep their codec")
    void sameNameTwiceRunsOnce() {
        AtomicInteger runs = new AtomicInteger();
        Outcome<byte[]> outcome = once.execute(order, null, ResultCodec.bytes(), ctx -> {
            byte[] a = ctx.step("make", ResultCodec.bytes(), () -> new byte[] {0, (byte) runs.incrementAndGet(), -1});
            byte[] b = ctx.step("make", ResultCodec.bytes(), () -> new byte[] {(byte) runs.incrementAndGet()});
            assertThat(b).isEqualTo(a);
            return b;
        });

        assertThat(outcome).isInstanceOf(Outcome.Processed.class);
        assertThat(((Outcome.Processed<byte[]>) outcome).result()).containsExactly(0, 1, -1);
        assertThat(runs).hasValue(1);
    }

    @Test
    @DisplayName("a step held by another execution of the message fails the handler with StepBusyException")
    void busyStepFailsTheHandler() {
        OneKey.claim(store, new ClaimRequest(order.forStep("charge"), null, Duration.ofMinutes(1), Duration.ofHours(1)));
        AtomicInteger runs = new AtomicInteger();

        Outcome<String> outcome = once.execute(order, null, ResultCodec.utf8(),
                ctx -> ctx.step("charge", () -> "charge-" + runs.incrementAndGet()));

        assertThat(outcome).isInstanceOf(Outcome.Failed.class);
        assertThat(((Outcome.Failed<String>) outcome).cause()).isInstanceOf(StepBusyException.class);
        assertThat(((StepBusyException) ((Outcome.Failed<String>) outcome).cause()).key())
                .isEqualTo(order.forStep("charge"));
        assertThat(runs).hasValue(0);
        assertThat(OneKey.find(store, order).orElseThrow().state()).as("message released").isEqualTo(RecordState.IN_PROGRESS);
    }

    @Test
    @DisplayName("a message key never sees a step's record, even when its id spells the step's stored id")
    void messageAndStepKeysDoNotMeet() {
        once.execute(order, null, ResultCodec.utf8(), ctx -> ctx.step("charge", () -> "charged"));
        IdempotencyKey impostor = IdempotencyKey.of("orders", order.forStep("charge").storageId());

        Outcome<String> outcome = once.execute(impostor, null, ResultCodec.utf8(), ctx -> "ran");

        assertThat(outcome).isInstanceOf(Outcome.Processed.class);
    }

    @Test
    @DisplayName("a context built outside the executor runs no steps")
    void plainContextRunsNoSteps() {
        ExecutionContext ctx = new io.github.once.internal.HandlerContext(new Lease(order, 1, Instant.now()), () -> true,
                type -> null);
        assertThatThrownBy(() -> ctx.step("x", () -> "y")).isInstanceOf(UnsupportedOperationException.class);
    }
}
