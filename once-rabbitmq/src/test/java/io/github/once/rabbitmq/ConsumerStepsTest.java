package io.github.once.rabbitmq;

import io.github.once.IdempotentExecutor;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A consumer handler's {@link DeliveryContext} runs the executor's steps and gives its operation keys: a step done
 * before a later failure is skipped on the delayed retry, and the operation key is the same on every attempt.
 * In-memory store, real broker.
 */
class ConsumerStepsTest {

    private RabbitFixture rabbit;
    private final InMemoryVariant variant = new InMemoryVariant();

    @BeforeEach
    void setUp() {
        rabbit = new RabbitFixture();
        rabbit.remember(ConsumerScenariosContract.FAST);
    }

    @AfterEach
    void tearDown() throws Exception {
        rabbit.close();
    }

    @Test
    void aStepDoneBeforeAFailureIsSkippedOnTheRetryAndTheOperationKeyStaysTheSame() throws Exception {
        IdempotentExecutor executor = rabbit.track(variant.executor(Duration.ofSeconds(1)));
        AtomicInteger charges = new AtomicInteger();
        AtomicInteger notifications = new AtomicInteger();
        List<String> operationKeys = new CopyOnWriteArrayList<>();
        List<String> chargeIds = new CopyOnWriteArrayList<>();
        RecordingListener listener = new RecordingListener();
        rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, executor)
                .handler((d, ctx) -> {
                    operationKeys.add(ctx.operationKey("payment"));
                    chargeIds.add(ctx.step("charge", () -> "charge-" + charges.incrementAndGet()));
                    if (ctx.attempt() == 1) {
                        throw new IllegalStateException("the notification service is down");
                    }
                    notifications.incrementAndGet();
                })
                .listener(listener).retry(ConsumerScenariosContract.FAST)
                .topology(Topology.declareAll(QueueType.CLASSIC))
                .build().start());
        rabbit.track(OncePublisher.builder(rabbit.connect()).build())
                .publish(OutboundMessage.of("", rabbit.queue, "pay".getBytes(StandardCharsets.UTF_8))
                        .withMessageId("order-7"));

        await().atMost(Duration.ofSeconds(10)).until(() -> listener.count(ConsumerAction.PROCESSED) == 1);
        assertThat(listener.count(ConsumerAction.RETRIED_FAILED)).isEqualTo(1);
        assertThat(charges).hasValue(1);
        assertThat(chargeIds).containsExactly("charge-1", "charge-1");
        assertThat(notifications).hasValue(1);
        assertThat(operationKeys).hasSize(2).allMatch(k -> k.equals(operationKeys.get(0)));
        assertThat(operationKeys.get(0)).contains("order-7").endsWith(":payment");
    }
}
