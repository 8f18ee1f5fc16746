package io.github.once.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;

/**
 * Which queues a consumer declares at start, and their names. Declaration is idempotent: declaring an existing
 * queue with the same arguments changes nothing. Delay queues are named {@code <queue>.once.delay.<ms>}, the
 * dead-letter queue {@code <queue>.once.dlq}; all are durable.
 *
 * <p>A classic queue is declared without {@code x-queue-type}, and {@link RetryPolicy.Strategy#REQUEUE_TAIL} declares no
 * delay queue, so a broker that refuses those arguments still gets a working topology.
 */
public final class Topology {

    private final boolean workQueue;
    private final boolean retryQueues;
    private final QueueType type;

    private Topology(boolean workQueue, boolean retryQueues, QueueType type) {
        this.workQueue = workQueue;
        this.retryQueues = retryQueues;
        this.type = Objects.requireNonNull(type, "type");
    }

    /** The work queue, the delay queues and the dead-letter queue, all of {@code type}. */
    public static Topology declareAll(QueueType type) {
        return new Topology(true, true, type);
    }

    /** Only the delay queues and the dead-letter queue; the application owns the work queue. The default. */
    public static Topology retryQueuesOnly(QueueType type) {
        return new Topology(false, true, type);
    }

    /** Nothing: every queue exists already (declared by operations, or by another consumer). */
    public static Topology none() {
        return new Topology(false, false, QueueType.CLASSIC);
    }

    public static String delayQueue(String queue, Duration delay) {
        return queue + ".once.delay." + delay.toMillis();
    }

    public static String deadLetterQueue(String queue) {
        return queue + ".once.dlq";
    }

    /** Whether this topology declares the work queue itself (else it must exist before the consumer starts). */
    public boolean declaresWorkQueue() {
        return workQueue;
    }

    /** Whether this topology declares any queue at all. */
    public boolean declaresAnything() {
        return workQueue || retryQueues;
    }

    public QueueType type() {
        return type;
    }

    /** Declares this topology for {@code queue} on a channel of its own (a refused argument closes a channel). */
    public void declare(Connection connection, String queue, RetryPolicy retry) throws IOException {
        if (!workQueue && !retryQueues) {
            return;
        }
        Channel channel = connection.createChannel();
        try {
            declare(channel, queue, retry);
        } finally {
            try {
                if (channel.isOpen()) {
                    channel.close();
                }
            } catch (IOException | TimeoutException | RuntimeException e) {
                // closing a channel we only declared on: nothing to lose
            }
        }
    }

    public void declare(Channel channel, String queue, RetryPolicy retry) throws IOException {
        if (workQueue) {
            channel.queueDeclare(queue, true, false, false, typeArguments());
        }
        if (!retryQueues) {
            return;
        }
        channel.queueDeclare(deadLetterQueue(queue), true, false, false, typeArguments());
        if (retry.strategy() == RetryPolicy.Strategy.DELAY_QUEUES) {
            for (Duration level : retry.backoff()) {
                Map<String, Object> args = typeArguments();
                args.put("x-message-ttl", level.toMillis());
                args.put("x-dead-letter-exchange", "");
                args.put("x-dead-letter-routing-key", queue);
                channel.queueDeclare(delayQueue(queue, level), true, false, false, args);
            }
        }
    }

    private Map<String, Object> typeArguments() {
        Map<String, Object> args = new HashMap<>();
        if (type == QueueType.QUORUM) {
            args.put("x-queue-type", "quorum");
        }
        return args;
    }

    @Override
    public String toString() {
        return "Topology[workQueue=" + workQueue + ", retryQueues=" + retryQueues + ", type=" + type + "]";
    }

    /** The type of the queues Once declares. */
    public enum QueueType {
        /** Classic queues; declared without an {@code x-queue-type} argument, so brokers that refuse it still work. */
        CLASSIC,
        /** Quorum queues ({@code x-queue-type=quorum}): replicated, for clusters. */
        QUORUM
    }
}
