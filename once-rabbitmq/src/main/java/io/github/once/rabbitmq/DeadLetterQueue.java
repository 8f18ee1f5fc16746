package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.ShutdownSignalException;

import io.github.once.rabbitmq.internal.ConnectionWatch;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A work queue's dead-letter queue ({@link Topology#deadLetterQueue}), read and moved back without losing or
 * reordering anything: messages are taken with {@code basic.get} and no ack, so they stay the broker's until
 * settled; what is not moved goes back with one {@code basic.nack(requeue)} at {@link #close()}, and RabbitMQ puts
 * requeued messages back at their places (a crash does the same through the closed connection). A move publishes a
 * copy to the work queue, without the dead-letter headers (the consumer gives it a fresh set of attempts), and
 * waits for the broker's confirm before it acks the dead letter, as the consumer moves messages. The {@code once}
 * CLI and the Spring Boot endpoint move dead letters through it.
 *
 * <pre>{@code
 * try (DeadLetterQueue dlq = DeadLetterQueue.open(connection, "orders")) {
 *     for (DeadLetterQueue.DeadLetter letter : dlq.take(100)) {
 *         dlq.moveBack(letter);
 *     }
 * }
 * }</pre>
 */
public final class DeadLetterQueue implements AutoCloseable {

    /** The headers a dead-lettering added; a moved copy starts its attempts afresh. */
    private static final List<String> DEAD_LETTER_HEADERS = List.of(OnceHeaders.REASON, OnceHeaders.ERROR,
            OnceHeaders.ATTEMPTS, OnceHeaders.QUEUE, OnceHeaders.ATTEMPT);
    private static final long CONFIRM_TIMEOUT_MILLIS = 10_000;

    private final Connection connection;
    private final Channel reading;
    private final String workQueue;
    private final String deadLetters;
    private final List<DeadLetter> held = new ArrayList<>();
    private final AtomicBoolean returned = new AtomicBoolean();
    private Channel publishing;
    private long remaining;

    /**
     * One message read from a dead-letter queue and not yet settled.
     *
     * @param deliveryTag its tag on the channel that read it
     * @param properties  its properties, headers included
     * @param body        its body
     */
    public record DeadLetter(long deliveryTag, AMQP.BasicProperties properties, byte[] body) {
        public DeadLetter {
            Objects.requireNonNull(properties, "properties");
            Objects.requireNonNull(body, "body");
        }

        public String messageId() {
            return properties.getMessageId();
        }

        /** A header as text, or null when absent. */
        public String header(String name) {
            Map<String, Object> headers = properties.getHeaders();
            Object value = headers == null ? null : headers.get(name);
            return value == null ? null : value.toString();
        }

        /** Why it was dead-lettered ({@link OnceHeaders#REASON}), or null. */
        public String reason() {
            return header(OnceHeaders.REASON);
        }
    }

    private DeadLetterQueue(Connection connection, Channel reading, String workQueue) {
        this.connection = connection;
        this.reading = reading;
        this.workQueue = workQueue;
        this.deadLetters = Topology.deadLetterQueue(workQueue);
    }

    /**
     * Opens the dead-letter queue of {@code workQueue} on channels of its own ({@link #close()} closes them, never
     * the connection).
     *
     * @throws IllegalArgumentException when the broker has no such dead-letter queue
     * @throws IOException              when the broker cannot be asked
     */
    public static DeadLetterQueue open(Connection connection, String workQueue) throws IOException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(workQueue, "workQueue");
        String name = Topology.deadLetterQueue(workQueue);
        // On a channel of its own: the broker closes the channel that asks for a missing queue.
        Channel probe = connection.createChannel();
        try {
            probe.queueDeclarePassive(name);
        } catch (IOException e) {
            throw new IllegalArgumentException("no queue '" + name + "' on the broker at " + ConnectionWatch.describe(connection)
                    + " (is the work queue's name right?)", e);
        }
        probe.abort();
        return new DeadLetterQueue(connection, connection.createChannel(), workQueue);
    }

    /** The dead-letter queue's name. */
    public String name() {
        return deadLetters;
    }

    /** Takes up to {@code max} dead letters, oldest first (those taken before included), without settling them. */
    public List<DeadLetter> take(int max) throws IOException {
        while (held.size() < max) {
            GetResponse r = reading.basicGet(deadLetters, false);
            if (r == null) {
                remaining = 0;
                break;
            }
            held.add(new DeadLetter(r.getEnvelope().getDeliveryTag(), r.getProps(), r.getBody()));
            remaining = r.getMessageCount();
        }
        return List.copyOf(held);
    }

    /** How many more messages the queue held when the last one was taken. */
    public long remaining() {
        return remaining;
    }

    /**
     * Publishes a copy of {@code letter} to the work queue, waits for the broker's confirm, then acks the dead
     * letter. A copy the broker could not route or did not confirm leaves the dead letter held, to go back with
     * the rest.
     *
     * @throws RejectedMessageException when the broker could not route the copy (no work queue)
     * @throws IOException              when the copy was not confirmed, or the broker cannot be reached
     */
    public void moveBack(DeadLetter letter) throws IOException {
        try {
            if (publishing == null) {
                publishing = connection.createChannel();
                publishing.confirmSelect();
                publishing.addReturnListener(r -> returned.set(true));
            }
            returned.set(false);
            // A return comes before the confirm of its publish, so it is known once the confirm is in.
            publishing.basicPublish("", workQueue, true, copy(letter.properties()), letter.body());
            publishing.waitForConfirmsOrDie(CONFIRM_TIMEOUT_MILLIS);
            if (returned.get()) {
                throw new RejectedMessageException(letter.messageId(), "", workQueue, "no work queue '" + workQueue
                        + "' on the broker at " + ConnectionWatch.describe(connection) + ": the broker could not route the moved copy;"
                        + " nothing was taken from " + deadLetters);
            }
            reading.basicAck(letter.deliveryTag(), false);
            held.remove(letter);
        } catch (TimeoutException | ShutdownSignalException e) {
            throw new IOException("moving " + describe(letter) + " to " + workQueue + " failed (" + e.getMessage()
                    + "); the dead letter stays in " + deadLetters, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while moving " + describe(letter), e);
        }
    }

    private static String describe(DeadLetter letter) {
        return letter.messageId() == null ? "a message without message_id" : "message " + letter.messageId();
    }

    private static AMQP.BasicProperties copy(AMQP.BasicProperties properties) {
        Map<String, Object> headers = properties.getHeaders() == null ? new HashMap<>()
                : new HashMap<>(properties.getHeaders());
        DEAD_LETTER_HEADERS.forEach(headers::remove);
        return properties.builder().headers(headers).deliveryMode(2).build();
    }

    /** Returns every message still held to the queue, at its place, and closes this queue's channels. */
    @Override
    public void close() {
        try {
            if (!held.isEmpty() && reading.isOpen()) {
                reading.basicNack(held.get(held.size() - 1).deliveryTag(), true, true);
            }
        } catch (IOException | RuntimeException e) {
            // Closing the channel requeues whatever it still held unacked.
        }
        abortQuietly(reading);
        abortQuietly(publishing);
    }

    private static void abortQuietly(Channel channel) {
        if (channel != null) {
            try {
                channel.abort();
            } catch (IOException | RuntimeException e) {
                // closing is best effort; the broker requeues unacked deliveries of a closed channel
            }
        }
    }
}
