package io.github.once.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.RecordState;
import io.github.once.readme.ReadmeSnippet;
import io.github.once.testkit.StoreCalls;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The quick start of README.md and docs/rabbitmq.md, compiled and run: the code between the README markers is the
 * snippet, and the test checks that both pages show exactly that code.
 */
class QuickStartTest {

    private final AtomicInteger shipped = new AtomicInteger();

    private void ship(byte[] order) {
        shipped.incrementAndGet();
    }

    record Started(Connection connection, Idempotency once, OnceConsumer consumer, OncePublisher publisher) {
    }

    Started quickStart(String queue) throws Exception {
        // README:start
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        Connection connection = factory.newConnection();
        Idempotency once = Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build();

        OnceConsumer consumer = OnceConsumer.builder(connection, queue, once)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .handler((delivery, ctx) -> ship(delivery.getBody()))
                .build()
                .start();

        OncePublisher publisher = OncePublisher.builder(connection).build();
        OutboundMessage order = OutboundMessage.of("", queue, "{\"order\":42}".getBytes(StandardCharsets.UTF_8))
                .withMessageId("order-42");
        publisher.publish(order);
        publisher.publish(order); // a re-send: delivered twice, shipped once
        // README:end
        return new Started(connection, once, consumer, publisher);
    }

    @Test
    void quickStartShipsOnceAndIsWhatTheDocsShow() throws Exception {
        String queue = "once-quickstart-" + UUID.randomUUID().toString().substring(0, 8);
        Started s = quickStart(queue);
        try {
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    StoreCalls.find(s.once().store(), IdempotencyKey.of(queue, "order-42"))
                            .map(r -> r.state() == RecordState.COMPLETED).orElse(false)
                            && s.consumer().inFlight() == 0 && messages(s, queue) == 0);
            assertThat(shipped.get()).isEqualTo(1);
        } finally {
            s.consumer().close();
            s.publisher().close();
            Channel ch = s.connection().createChannel();
            for (String q : RetryPolicy.defaults().backoff().stream().map(d -> Topology.delayQueue(queue, d)).toList()) {
                ch.queueDelete(q);
            }
            ch.queueDelete(Topology.deadLetterQueue(queue));
            ch.queueDelete(queue);
            s.connection().close();
            s.once().close();
        }
        assertThat(docs()).contains(snippet());
        assertThat(Files.readString(Path.of("../README.md"))).as("README.md").contains(snippet());
    }

    private static long messages(Started s, String queue) throws Exception {
        Channel ch = s.connection().createChannel();
        try {
            return ch.messageCount(queue);
        } finally {
            ch.close();
        }
    }

    /** The lines between the markers, de-indented. */
    static String snippet() throws Exception {
        return ReadmeSnippet.of("src/test/java/io/github/once/rabbitmq/QuickStartTest.java");
    }

    private static String docs() throws Exception {
        return Files.readString(Path.of("../docs/rabbitmq.md"));
    }
}
