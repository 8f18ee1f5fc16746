package io.github.once.examples.orderflow;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;

import io.github.once.ExecutionContext;
import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.ResultCodec;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.OncePublisher;
import io.github.once.rabbitmq.OutboundMessage;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;
import io.github.once.tiered.TieredIdempotencyStore;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Through a real OnceConsumer on the real RabbitMQ: steps already done stay done across retries. */
class StepDeadLetterTest {

    private static final Duration[] BACKOFF = {Duration.ofMillis(30), Duration.ofMillis(60), Duration.ofMillis(120)};

    @Test
    @DisplayName("a message whose second step fails three times ends in the dead-letter queue with its first step done once")
    void secondStepFailingEndsInDeadLetterQueue() throws Exception {
        String queue = "once-steps-" + UUID.randomUUID().toString().substring(0, 8);
        RetryPolicy retry = RetryPolicy.builder().maxAttempts(3).backoff(BACKOFF).build();
        AtomicInteger reserved = new AtomicInteger();
        AtomicInteger chargeAttempts = new AtomicInteger();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri("amqp://guest:guest@127.0.0.1:5672");
        TieredIdempotencyStore store = TieredIdempotencyStore.builder(InMemoryIdempotencyStore.builder().build(),
                InMemoryIdempotencyStore.builder().build()).build();
        try (Connection connection = factory.newConnection("once-steps-test");
             Idempotency once = Idempotency.builder(store).build()) {
            try (OnceConsumer consumer = OnceConsumer.builder(connection, queue, once)
                    .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                    .retry(retry)
                    .handler((delivery, context) -> {
                        ExecutionContext ctx = context.execution();
                        ctx.step("reserve-stock", ResultCodec.none(), () -> {
                            reserved.incrementAndGet();
                            return null;
                        });
                        ctx.step("charge", () -> {
                            chargeAttempts.incrementAndGet();
                            throw new IllegalStateException("card declined");
                        });
                    })
                    .build()
                    .start();
                 OncePublisher publisher = OncePublisher.builder(connection).build()) {
                publisher.publish(OutboundMessage.of("", queue, "order-9".getBytes(StandardCharsets.UTF_8))
                        .withMessageId("order-9"));

                String dlq = Topology.deadLetterQueue(queue);
                try (Channel ch = connection.createChannel()) {
                    await().atMost(Duration.ofSeconds(20)).until(() -> ch.queueDeclarePassive(dlq).getMessageCount() == 1);
                    GetResponse dead = ch.basicGet(dlq, true);
                    assertThat(new String(dead.getBody(), StandardCharsets.UTF_8)).isEqualTo("order-9");
                    assertThat(dead.getProps().getMessageId()).isEqualTo("order-9");
                }
                assertThat(consumer.inFlight()).isZero();
            } finally {
                try (Channel ch = connection.createChannel()) {
                    ch.queueDelete(queue);
                    ch.queueDelete(Topology.deadLetterQueue(queue));
                    for (Duration delay : BACKOFF) {
                        ch.queueDelete(Topology.delayQueue(queue, delay));
                    }
                }
            }
        }
        assertThat(chargeAttempts).as("the failing step ran once per attempt").hasValue(3);
        assertThat(reserved).as("the first step ran once").hasValue(1);
    }
}
