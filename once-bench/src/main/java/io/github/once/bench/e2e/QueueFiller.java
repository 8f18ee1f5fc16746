package io.github.once.bench.e2e;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.MessageProperties;

import java.io.IOException;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeoutException;

/**
 * Declares a fresh queue and fills it before a run, so every variant consumes the same backlog: N persistent
 * messages of the same size, each with its own {@code message_id}, published with confirms in batches.
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
                AMQP.BasicProperties props = MessageProperties.PERSISTENT_BASIC.builder()
                        .messageId(Integer.toString(i))
                        .build();
                channel.basicPublish("", queue, props, body);
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

    void delete(String queue) throws IOException, TimeoutException {
        try (Channel channel = connection.createChannel()) {
            channel.queueDelete(queue);
        }
    }
}
