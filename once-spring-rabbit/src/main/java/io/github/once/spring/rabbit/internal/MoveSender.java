package io.github.once.spring.rabbit.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;

import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.OncePublisher;
import io.github.once.rabbitmq.OutboundMessage;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;

import java.io.IOException;
import java.util.concurrent.TimeoutException;

import org.springframework.amqp.core.Address;

/**
 * Publishes the copies the disposition moves (delay and dead-letter queues) and replies, on a connection of its
 * own made from the application's RabbitMQ connection factory, each confirmed (and, for copies, routed) before
 * the original is acked. once-rabbitmq's {@link OncePublisher} does the confirming, so the guarantee is the one
 * {@code OnceConsumer} has.
 */
public final class MoveSender implements AutoCloseable {
    private final com.rabbitmq.client.ConnectionFactory factory;
    private final ConsumerConfig config;
    private Connection connection;
    private OncePublisher publisher;
    private OncePublisher replies;

    public MoveSender(com.rabbitmq.client.ConnectionFactory factory, ConsumerConfig config) {
        this.factory = factory;
        this.config = config;
    }

    /** Publishes a moved copy and waits for its confirm; throws when it is not confirmed or not routed. */
    public synchronized void move(String queue, AMQP.BasicProperties properties, byte[] body) {
        publisher().publish(new OutboundMessage("", queue, properties, body));
    }

    /**
     * Sends a reply; a reply is best effort, like {@code OnceConsumer}'s: the caller logs a failure. Not mandatory,
     * as {@code OnceConsumer}'s: the broker reports a message to a direct reply-to address as unroutable even
     * when it delivers it.
     */
    public synchronized void reply(String replyTo, AMQP.BasicProperties properties, byte[] body) {
        Address address = new Address(replyTo);
        replies().publish(new OutboundMessage(address.getExchangeName() == null ? "" : address.getExchangeName(),
                address.getRoutingKey(), properties, body));
    }

    private OncePublisher replies() {
        Connection c = connection();
        if (replies == null) {
            replies = OncePublisher.builder(c).confirmTimeout(config.moveTimeout()).maxAttempts(1).mandatory(false)
                    .build();
        }
        return replies;
    }

    /** Declares the delay and dead-letter queues of {@code queue}, as {@code topology} says. */
    public synchronized void declare(Topology topology, String queue, RetryPolicy retry) throws IOException {
        topology.declare(connection(), queue, retry);
    }

    private OncePublisher publisher() {
        Connection c = connection();
        if (publisher == null) {
            publisher = OncePublisher.builder(c).confirmTimeout(config.moveTimeout()).maxAttempts(1).build();
        }
        return publisher;
    }

    private Connection connection() {
        if (connection != null && !connection.isOpen()) {
            close();
        }
        if (connection == null) {
            try {
                connection = factory.newConnection("once-moves");
            } catch (IOException | TimeoutException e) {
                throw new org.springframework.amqp.AmqpConnectException(e);
            }
        }
        return connection;
    }

    @Override
    public synchronized void close() {
        if (publisher != null) {
            publisher.close();
            publisher = null;
        }
        if (replies != null) {
            replies.close();
            replies = null;
        }
        if (connection != null) {
            try {
                connection.abort();
            } finally {
                connection = null;
            }
        }
    }
}
