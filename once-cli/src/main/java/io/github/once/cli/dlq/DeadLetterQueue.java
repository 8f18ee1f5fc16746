package io.github.once.cli.dlq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.ShutdownSignalException;
import io.github.once.cli.CliException;
import io.github.once.cli.ExitCodes;
import io.github.once.rabbitmq.OnceHeaders;
import io.github.once.rabbitmq.Topology;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A work queue's dead-letter queue ({@link Topology#deadLetterQueue}), read without losing or reordering anything:
 * messages are taken with {@code basic.get} and no ack, so they stay the broker's until settled; what is not moved
 * goes back with one {@code basic.nack(requeue)}, and RabbitMQ puts requeued messages back at their places. A
 * crash of this process closes its connection, which returns them the same way. A move publishes a copy to the
 * work queue and waits for the broker's confirm before it acks the dead letter, as the consumer moves messages.
 */
final class DeadLetterQueue implements AutoCloseable {

    /** The headers a dead-lettering added; a moved copy starts its attempts afresh. */
    private static final List<String> DEAD_LETTER_HEADERS = List.of(OnceHeaders.REASON, OnceHeaders.ERROR,
            OnceHeaders.ATTEMPTS, OnceHeaders.QUEUE, OnceHeaders.ATTEMPT);
    private static final long CONFIRM_TIMEOUT_MILLIS = 10_000;

    private final Connection connection;
    private final Channel reading;
    private final String queue;
    private final String deadLetters;
    private final String where;
    private final List<DeadLetter> held = new ArrayList<>();
    private final AtomicBoolean returned = new AtomicBoolean();
    private Channel publishing;
    private long remaining;

    private DeadLetterQueue(Connection connection, Channel reading, String queue, String where) {
        this.connection = connection;
        this.reading = reading;
        this.queue = queue;
        this.deadLetters = Topology.deadLetterQueue(queue);
        this.where = where;
    }

    static DeadLetterQueue open(String amqpUri, String queue) {
        ConnectionFactory factory = new ConnectionFactory();
        try {
            factory.setUri(amqpUri);
        } catch (Exception e) {
            throw CliException.usage("--amqp-uri is not a usable AMQP URI: '" + amqpUri + "' (" + e.getMessage() + ")");
        }
        factory.setAutomaticRecoveryEnabled(false);
        factory.setConnectionTimeout(5_000);
        String where = "the broker at " + factory.getHost() + ":" + factory.getPort();
        Connection connection;
        try {
            connection = factory.newConnection("once-dlq");
        } catch (IOException | TimeoutException e) {
            throw CliException.unreachable("cannot reach " + where + " (" + e.getMessage() + ")", e);
        }
        try {
            Channel reading = connection.createChannel();
            DeadLetterQueue dlq = new DeadLetterQueue(connection, reading, queue, where);
            dlq.requireQueue(dlq.deadLetters);
            return dlq;
        } catch (IOException | RuntimeException e) {
            connection.abort();
            throw e instanceof CliException c ? c : CliException.unreachable("cannot read from " + where, e);
        }
    }

    String deadLetterQueue() {
        return deadLetters;
    }

    String where() {
        return where;
    }

    /** Takes up to {@code max} dead letters, oldest first, without settling them. */
    List<DeadLetter> take(int max) {
        try {
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
        } catch (IOException e) {
            throw CliException.unreachable("cannot read " + deadLetters + " on " + where, e);
        }
    }

    /** How many more messages the queue held when the last one was taken. */
    long remaining() {
        return remaining;
    }

    /**
     * Publishes a copy of {@code letter} to the work queue, waits for the broker's confirm, then acks the dead
     * letter. A copy the broker could not route (no work queue) or did not confirm leaves the dead letter held,
     * to go back with the rest.
     */
    void moveBack(DeadLetter letter) {
        try {
            if (publishing == null) {
                publishing = connection.createChannel();
                publishing.confirmSelect();
                publishing.addReturnListener(r -> returned.set(true));
            }
            returned.set(false);
            // A return comes before the confirm of its publish, so it is known once the confirm is in.
            publishing.basicPublish("", queue, true, copy(letter.properties()), letter.body());
            publishing.waitForConfirmsOrDie(CONFIRM_TIMEOUT_MILLIS);
            if (returned.get()) {
                throw new CliException(ExitCodes.MISSING_SCHEMA, "no work queue '" + queue + "' on " + where
                        + ": the broker could not route the moved copy; nothing was taken from " + deadLetters);
            }
            reading.basicAck(letter.deliveryTag(), false);
            held.remove(letter);
        } catch (IOException | TimeoutException | ShutdownSignalException e) {
            throw CliException.unreachable("moving " + describe(letter) + " to " + queue + " failed on " + where
                    + " (" + e.getMessage() + "); the dead letter stays in " + deadLetters, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw CliException.unreachable("interrupted while moving " + describe(letter), e);
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

    /** On a channel of its own: the broker closes the channel that asks for a missing queue. */
    private void requireQueue(String name) throws IOException {
        Channel probe = connection.createChannel();
        try {
            probe.queueDeclarePassive(name);
        } catch (IOException e) {
            throw new CliException(ExitCodes.MISSING_SCHEMA, "no queue '" + name + "' on " + where
                    + " (is the work queue's name right?)");
        }
        probe.abort();
    }

    /** Returns every message still held to the queue, at its place, and closes the connection. */
    @Override
    public void close() {
        try {
            if (!held.isEmpty() && reading.isOpen()) {
                reading.basicNack(held.get(held.size() - 1).deliveryTag(), true, true);
            }
            connection.close();
        } catch (IOException | RuntimeException e) {
            // The broker requeues whatever a closed connection still held unacked.
            connection.abort();
        }
    }
}
