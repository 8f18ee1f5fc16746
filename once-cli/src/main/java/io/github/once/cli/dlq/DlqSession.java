package io.github.once.cli.dlq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.github.once.cli.CliException;
import io.github.once.cli.ExitCodes;
import io.github.once.cli.ServiceUris;
import io.github.once.rabbitmq.DeadLetterQueue;
import io.github.once.rabbitmq.DeadLetterQueue.DeadLetter;
import io.github.once.rabbitmq.RejectedMessageException;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeoutException;

/**
 * A work queue's dead-letter queue on a connection of the command's own: once-rabbitmq's {@link DeadLetterQueue},
 * with its failures as the CLI's exit statuses. Closing it returns what was not moved and closes the connection.
 */
final class DlqSession implements AutoCloseable {
    private final Connection connection;
    private final DeadLetterQueue queue;
    private final String where;

    private DlqSession(Connection connection, DeadLetterQueue queue, String where) {
        this.connection = connection;
        this.queue = queue;
        this.where = where;
    }

    static DlqSession open(String amqpUri, String workQueue) {
        ConnectionFactory factory = ServiceUris.amqp(amqpUri, "--amqp-uri");
        factory.setAutomaticRecoveryEnabled(false);
        factory.setConnectionTimeout(5_000);
        String where = "the broker at " + factory.getHost() + ":" + factory.getPort();
        Connection connection;
        try {
            connection = factory.newConnection("once-dlq");
        } catch (IOException | TimeoutException e) {
            throw ServiceUris.unreachable(e, where, e.getMessage());
        }
        try {
            return new DlqSession(connection, DeadLetterQueue.open(connection, workQueue), where);
        } catch (IllegalArgumentException e) {
            connection.abort();
            throw new CliException(ExitCodes.MISSING_SCHEMA, e.getMessage());
        } catch (IOException | RuntimeException e) {
            connection.abort();
            throw CliException.unreachable("cannot read from " + where, e);
        }
    }

    String deadLetterQueue() {
        return queue.name();
    }

    String where() {
        return where;
    }

    List<DeadLetter> take(int max) {
        try {
            return queue.take(max);
        } catch (IOException e) {
            throw CliException.unreachable("cannot read " + queue.name() + " on " + where, e);
        }
    }

    long remaining() {
        return queue.remaining();
    }

    void moveBack(DeadLetter letter) {
        try {
            queue.moveBack(letter);
        } catch (RejectedMessageException e) {
            throw new CliException(ExitCodes.MISSING_SCHEMA, e.reason());
        } catch (IOException e) {
            throw CliException.unreachable(e.getMessage() + " on " + where, e);
        }
    }

    @Override
    public void close() {
        queue.close();
        try {
            connection.close();
        } catch (IOException | RuntimeException e) {
            connection.abort(); // the broker requeues whatever a closed connection still held unacked
        }
    }
}
