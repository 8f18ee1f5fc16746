package io.github.once.examples.orderflow;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.Outcome;
import io.github.once.ResultCodec;

import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The trap of a call that succeeded but reported a failure: its retry must send the same idempotency key. */
class PaymentStepTest {

    private final FakePaymentService service = start();
    private final PaymentClient client = new PaymentClient(service.uri(), Duration.ofSeconds(2));
    private final Idempotency once = Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build();
    private final IdempotencyKey order = IdempotencyKey.of("orders", "order-" + UUID.randomUUID());

    private static FakePaymentService start() {
        try {
            return FakePaymentService.start(0);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterEach
    void close() {
        once.close();
        service.close();
    }

    @Test
    @DisplayName("a payment that succeeded but timed out, then retried, charges once: the step sends the operation key")
    void timedOutPaymentChargesOnce() {
        service.succeedButTimeOut(1, Duration.ofSeconds(4));

        Outcome<String> first = once.execute(order, null, ResultCodec.utf8(),
                ctx -> ctx.step("payment", () -> client.charge(ctx.operationKey("payment"), order.id(), 4200)));
        Outcome<String> retry = once.execute(order, null, ResultCodec.utf8(),
                ctx -> ctx.step("payment", () -> client.charge(ctx.operationKey("payment"), order.id(), 4200)));

        assertThat(first).isInstanceOf(Outcome.Failed.class);
        assertThat(((Outcome.Failed<String>) first).cause()).isInstanceOf(HttpTimeoutException.class);
        assertThat(retry).isInstanceOf(Outcome.Processed.class);
        assertThat(((Outcome.Processed<String>) retry).result()).isEqualTo("ch_1");
        assertThat(service.requests()).isEqualTo(2);
        assertThat(service.charges()).isEqualTo(1);
        assertThat(service.charged("orders:" + order.id() + ":payment")).isTrue();
    }

    @Test
    @DisplayName("the trap itself: a retry that sends a new key each attempt charges twice")
    void newKeyPerAttemptChargesTwice() {
        service.succeedButTimeOut(1, Duration.ofSeconds(4));

        for (int attempt = 0; attempt < 2; attempt++) {
            once.execute(order, null, ResultCodec.utf8(),
                    ctx -> ctx.step("payment", () -> client.charge(UUID.randomUUID().toString(), order.id(), 4200)));
        }

        assertThat(service.charges()).isEqualTo(2);
    }

    @Test
    @DisplayName("once the payment step is recorded, a retry after a later failure does not call the service again")
    void recordedPaymentIsNotCalledAgain() {
        boolean[] notifyFails = {true};
        for (int attempt = 0; attempt < 2; attempt++) {
            once.execute(order, null, ResultCodec.utf8(), ctx -> {
                String charge = ctx.step("payment", () -> client.charge(ctx.operationKey("payment"), order.id(), 4200));
                if (notifyFails[0]) {
                    notifyFails[0] = false;
                    throw new IllegalStateException("mailer down");
                }
                return charge;
            });
        }

        assertThat(service.requests()).isEqualTo(1);
        assertThat(service.charges()).isEqualTo(1);
    }
}
