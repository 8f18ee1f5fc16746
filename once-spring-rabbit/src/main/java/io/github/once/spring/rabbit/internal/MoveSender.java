package io.github.once.spring.rabbit.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;

import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.OncePublisher;
import io.github.once.rabbitmq.OutboundMessage;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;

import java.io.IOException;

import org.springframework.amqp.core.Address;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionProxy;
import org.springframework.amqp.rabbit.connection.SimpleConnection;

/**
 * Publishes the copies the disposition moves (delay and dead-letter queues) and replies, each confirmed (and, for
 * copies, routed) before the original is acked, on channels of its own on a connection of the application's
 * Spring connection factory (its publisher connection factory when it has one): so the moves reach the broker the
 * way the application's own connections do, through every address of {@code spring.rabbitmq.addresses}, its TLS
 * and its credentials. once-rabbitmq's {@link OncePublisher} does the confirming, so the guarantee is the one
 * {@code OnceConsumer} has.
 */
public final class MoveSender implements AutoCloseable {
    private final ConnectionFactory factory;
    private final ConsumerConfig config;
    /** Spring's: the factory opens and closes it, this class only opens channels on it. */
    private Connection connection;
    private OncePublisher publisher;
    private OncePublisher replies;

    public MoveSender(ConnectionFactory factory, ConsumerConfig config) {
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

    /** Checks that a connection to the broker is open, opening one if needed; throws when none can be. */
    public synchronized void check() {
        connection();
    }

    private Connection connection() {
        if (connection != null && !connection.isOpen()) {
            close();
        }
        if (connection == null) {
            connection = amqpClientConnection(factory.createConnection()); // AmqpConnectException when refused
        }
        return connection;
    }

    /** amqp-client's connection under Spring's: a caching factory hands out a proxy of a simple connection. */
    private static Connection amqpClientConnection(org.springframework.amqp.rabbit.connection.Connection spring) {
        Object target = spring instanceof ConnectionProxy proxy ? proxy.getTargetConnection() : spring;
        if (target instanceof SimpleConnection simple) {
            return simple.getDelegate();
        }
        throw new IllegalStateException("Once publishes its moves on an amqp-client connection, but the connection "
                + "factory gave a " + spring.getClass().getName());
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
        connection = null; // Spring's connection factory closes it
    }
}
