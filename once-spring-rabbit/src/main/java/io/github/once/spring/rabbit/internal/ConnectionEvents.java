package io.github.once.spring.rabbit.internal;

import com.rabbitmq.client.ShutdownSignalException;

import java.time.Duration;
import java.util.Collection;
import java.util.function.Supplier;

import org.springframework.amqp.rabbit.connection.AbstractConnectionFactory;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionListener;

/**
 * Tells every queue's listeners when the containers' broker connection is lost (not closed by the application)
 * and when a new one is made after it, as {@code OnceConsumer} reports its own connection: Spring's containers
 * recover by opening a new connection, so a loss is always followed by recovery attempts.
 */
public final class ConnectionEvents implements ConnectionListener {
    private final String broker;
    private final Supplier<Collection<QueueEvents>> queues;
    private volatile long lostAt;

    private ConnectionEvents(String broker, Supplier<Collection<QueueEvents>> queues) {
        this.broker = broker;
        this.queues = queues;
    }

    /** Watches {@code factory}'s connections on behalf of {@code queues}. */
    public static void watch(AbstractConnectionFactory factory, Supplier<Collection<QueueEvents>> queues) {
        factory.addConnectionListener(new ConnectionEvents(factory.getHost() + ":" + factory.getPort(), queues));
    }

    @Override
    public void onCreate(Connection connection) {
        long since = lostAt;
        if (since != 0) {
            lostAt = 0;
            Duration lost = Duration.ofNanos(System.nanoTime() - since);
            queues.get().forEach(q -> q.connectionRecovered(broker, lost));
        }
    }

    @Override
    public void onShutDown(ShutdownSignalException signal) {
        if (signal.isInitiatedByApplication()) {
            return;
        }
        lostAt = System.nanoTime();
        queues.get().forEach(q -> q.connectionLost(broker, signal));
    }
}
