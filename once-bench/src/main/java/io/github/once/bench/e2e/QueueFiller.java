package io.github.once.bench.e2e;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.MessageProperties;

import java.io.IOException;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

/**
 * Declares a fresh queue and fills it before a run, so every variant consumes the same backlog: N persistent
 * messages of the same size, each with its own {@code message_id}, published with confirms in batches. In a paced
 * run it publishes them instead while the consumer runs, at a fixed rate.
 */
final class QueueFiller {

    /** The same queue settings for every variant: a durable classic queue. */
    static final Map<String, Object> QUEUE_ARGUMENTS = Map.of("x-queue-type", "classic");

    private static final int CONFIRM_BATCH = 1_000;

    private final Connection connection;
    private final byte[] body;

    QueueFiller(Connection connection, int messageSize) {
        this.connection = connection;
        this.body = new byte[messageSize];
        new Random(42).nextBytes(body);
    }

    void declareAndFill(String queue, int messages) throws IOException, InterruptedException, TimeoutException {
        try (Channel channel = connection.createChannel()) {
            channel.queueDeclare(queue, true, false, false, QUEUE_ARGUMENTS);
            channel.confirmSelect();
            for (int i = 0; i < messages; i++) {
                channel.basicPublish("", queue, properties(i), body);
                if ((i + 1) % CONFIRM_BATCH == 0) {
                    channel.waitForConfirmsOrDie(60_000);
                }
            }
            channel.waitForConfirmsOrDie(60_000);
            long ready = channel.messageCount(queue);
            if (ready != messages) {
                throw new IllegalStateException("queue " + queue + " holds " + ready + " messages, expected " + messages);
            }
        }
    }

    /** Declares an empty queue, for a paced run's publisher to fill while the consumer runs. */
    void declare(String queue) throws IOException, TimeoutException {
        try (Channel channel = connection.createChannel()) {
            channel.queueDeclare(queue, true, false, false, QUEUE_ARGUMENTS);
        }
    }

    /**
     * Publishes {@code messages} to {@code queue} at {@code rate} per second, each at its own moment (message i at
     * start + i / rate, however late the one before it went), telling the meter when each went. Confirms are
     * awaited only at the end, so a slow confirm never holds the next message back; a publisher that falls behind
     * its schedule catches up at once, and the latencies then show it.
     */
    void publishPaced(String queue, int messages, int rate, Meter meter)
            throws IOException, InterruptedException, TimeoutException {
        try (Channel channel = connection.createChannel()) {
            channel.confirmSelect();
            long start = System.nanoTime();
            for (int i = 0; i < messages; i++) {
                long due = start + (long) i * 1_000_000_000L / rate;
                for (long wait; (wait = due - System.nanoTime()) > 0; ) {
                    LockSupport.parkNanos(wait);
                }
                meter.published(i);
                channel.basicPublish("", queue, properties(i), body);
            }
            channel.waitForConfirmsOrDie(60_000);
        }
    }

    private static AMQP.BasicProperties properties(int index) {
        return MessageProperties.PERSISTENT_BASIC.builder().messageId(Integer.toString(index)).build();
    }

    void delete(String queue) throws IOException, TimeoutException {
        try (Channel channel = connection.createChannel()) {
            channel.queueDelete(queue);
        }
    }
}
