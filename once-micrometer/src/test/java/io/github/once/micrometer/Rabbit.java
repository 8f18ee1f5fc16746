package io.github.once.micrometer;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The real local RabbitMQ (127.0.0.1:5672, guest/guest): a fresh queue name per test, a publisher channel, and
 * clean-up of the queue, its delay queues and its dead-letter queue. A broker that is down fails the test.
 */
final class Rabbit implements AutoCloseable {

    final String queue = "once-metrics-" + UUID.randomUUID().toString().substring(0, 8);
    final RetryPolicy retry;
    private final Connection connection;
    private final Channel publisher;
    private final List<AutoCloseable> closeables = new ArrayList<>();

    Rabbit(RetryPolicy retry) throws Exception {
        this.retry = retry;
        ConnectionFactory f = new ConnectionFactory();
        f.setHost("127.0.0.1");
        f.setPort(5672);
        f.setUsername("guest");
        f.setPassword("guest");
        f.setConnectionTimeout(5000);
        this.connection = f.newConnection("once-micrometer-test");
        this.publisher = connection.createChannel();
    }

    Connection connection() {
        return connection;
    }

    <T extends AutoCloseable> T track(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    /** Publishes {@code body} to the queue; a null {@code messageId} leaves the message without a key. */
    void publish(String messageId, String body) throws Exception {
        publisher.basicPublish("", queue, new AMQP.BasicProperties.Builder().messageId(messageId).build(),
                body.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() throws Exception {
        while (!closeables.isEmpty()) {
            AutoCloseable last = closeables.remove(closeables.size() - 1);
            try {
                last.close(); // the latest first: Prometheus, then the endpoint, the consumer, the executor
            } catch (Exception e) {
                // clean-up continues
            }
        }
        List<String> names = new ArrayList<>(List.of(queue, Topology.deadLetterQueue(queue)));
        for (Duration level : retry.backoff()) {
            names.add(Topology.delayQueue(queue, level));
        }
        for (String name : names) {
            Channel ch = connection.createChannel();
            ch.queueDelete(name);
            ch.close();
        }
        connection.close();
    }
}
