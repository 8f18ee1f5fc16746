package io.github.once.outbox.internal;

import com.rabbitmq.client.Connection;

import io.github.once.rabbitmq.OncePublisher;
import io.github.once.rabbitmq.OutboundMessage;
import io.github.once.rabbitmq.PublishException;
import io.github.once.rabbitmq.RejectedMessageException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Publishes claimed rows through an {@link OncePublisher} of the relay's own (its own channel, confirms, mandatory),
 * one try each: the relay keeps the retry state in the table. Each row's fate becomes a {@link PublishOutcome}.
 */
public final class RowPublisher implements AutoCloseable {
    private final Connection connection;
    private final OncePublisher publisher;

    public RowPublisher(Connection connection, Duration confirmTimeout) {
        this.connection = connection;
        this.publisher = OncePublisher.builder(connection).confirmTimeout(confirmTimeout).build();
    }

    /** Whether the connection is open: no point claiming rows while it recovers. */
    public boolean brokerReachable() {
        return connection.isOpen();
    }

    /** Sends every row once and waits for their confirms, up to the confirm timeout; the outcomes in order. */
    public List<PublishOutcome> publish(List<ClaimedRow> rows) {
        if (rows.isEmpty()) {
            return List.of();
        }
        List<OutboundMessage> messages = new ArrayList<>(rows.size());
        for (ClaimedRow row : rows) {
            messages.add(new OutboundMessage(row.exchange(), row.routingKey(), row.properties(), row.body())
                    .withMessageId(row.messageId()));
        }
        List<PublishOutcome> outcomes = new ArrayList<>(rows.size());
        for (Optional<PublishException> failure : publisher.tryPublishAll(messages)) {
            outcomes.add(failure.isEmpty() ? new PublishOutcome.Confirmed()
                    : failure.get() instanceof RejectedMessageException r ? new PublishOutcome.Rejected(r.reason())
                    : new PublishOutcome.Unknown(failure.get().getMessage()));
        }
        return outcomes;
    }

    /** Closes the publishing channel; the connection is the caller's. */
    @Override
    public void close() {
        publisher.close();
    }
}
