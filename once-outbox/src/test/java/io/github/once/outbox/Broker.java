package io.github.once.outbox;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeoutException;

/**
 * The real local RabbitMQ (127.0.0.1:5672, guest/guest): connections with fast automatic recovery, fresh queue
 * names, and clean-up of every queue and connection the test made. A broker that is down fails the test loudly.
 */
final class Broker implements AutoCloseable {

    private final List<Connection> connections = new ArrayList<>();
    private final List<String> queues = new ArrayList<>();
    private Connection admin;

    static ConnectionFactory factory() {
        ConnectionFactory f = new ConnectionFactory();
        f.setHost("127.0.0.1");
        f.setPort(5672);
        f.setUsername("guest");
        f.setPassword("guest");
        f.setAutomaticRecoveryEnabled(true);
        f.setNetworkRecoveryInterval(200);
        f.setRequestedHeartbeat(5);
        f.setConnectionTimeout(5000);
        return f;
    }

    synchronized Connection connect(String name) throws IOException, TimeoutException {
        Connection c = factory().newConnection(name);
        connections.add(c);
        return c;
    }

    /** A durable queue of a fresh name, deleted on close. */
    String queue(Map<String, Object> arguments) throws IOException, TimeoutException {
        String q = "once-outbox-test-" + UUID.randomUUID().toString().substring(0, 8);
        try (Channel ch = admin().createChannel()) {
            ch.queueDeclare(q, true, false, false, arguments);
        }
        queues.add(q);
        return q;
    }

    String queue() throws IOException, TimeoutException {
        return queue(null);
    }

    long messageCount(String queue) throws IOException, TimeoutException {
        try (Channel ch = admin().createChannel()) {
            return ch.queueDeclarePassive(queue).getMessageCount();
        }
    }

    /** Takes every message now in the queue. */
    List<GetResponse> drain(String queue) throws IOException, TimeoutException {
        List<GetResponse> all = new ArrayList<>();
        try (Channel ch = admin().createChannel()) {
            GetResponse r;
            while ((r = ch.basicGet(queue, true)) != null) {
                all.add(r);
            }
        }
        return all;
    }

    private synchronized Connection admin() throws IOException, TimeoutException {
        if (admin == null || !admin.isOpen()) {
            admin = connect("once-outbox-test-admin");
        }
        return admin;
    }

    @Override
    public synchronized void close() throws IOException, TimeoutException {
        try (Channel ch = admin().createChannel()) {
            for (String q : queues) {
                ch.queueDelete(q);
            }
        }
        for (Connection c : connections) {
            if (c.isOpen()) {
                c.abort();
            }
        }
    }
}
