package io.github.once.rabbitmq;

import com.rabbitmq.client.Connection;

import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A consumer and a publisher run in a JVM whose class path has no Micrometer at all ({@link TracingTest} starts
 * it): without an observation registry Once loads no Micrometer class. Exits 0 once its one message was handled.
 * Arguments: the queue.
 */
public final class WithoutMicrometer {
    public static void main(String[] args) throws Exception {
        String queue = args[0];
        CountDownLatch handled = new CountDownLatch(1);
        try (Connection connection = RabbitFixture.factory().newConnection("once-test-without-micrometer");
             Idempotency executor = Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build();
             OnceConsumer consumer = OnceConsumer.builder(connection, queue, executor)
                     .handler((d, ctx) -> handled.countDown()).topology(Topology.none()).build().start();
             OncePublisher publisher = OncePublisher.builder(connection).build()) {
            publisher.publish(OutboundMessage.of("", queue, new byte[]{'x'}).withMessageId("without-micrometer"));
            System.exit(handled.await(20, TimeUnit.SECONDS) ? 0 : 3);
        }
    }
}
