package io.github.once.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The real local RabbitMQ (127.0.0.1:5672, guest/guest): connections with fast automatic recovery, a fresh queue
 * name per test, and clean-up of every queue the test made. A broker that is down fails the test loudly.
 */
final class RabbitFixture implements AutoCloseable {

    final String queue = "once-test-" + UUID.randomUUID().toString().substring(0, 8);
    private final List<Connection> connections = new ArrayList<>();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private final List<String> extraQueues = new ArrayList<>();
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

    Connection connect() throws Exception {
        Connection c = factory().newConnection("once-test");
        connections.add(c);
        return c;
    }

    <T extends AutoCloseable> T track(T closeable) {
        closeables.add(closeable);
        return closeable;
    }

    /** A channel for the test's own checks. */
    synchronized Channel admin() throws Exception {
        if (admin == null || !admin.isOpen()) {
            admin = connect();
        }
        return admin.createChannel();
    }

    void alsoDelete(String queueName) {
        extraQueues.add(queueName);
    }

    long messageCount(String queueName) throws Exception {
        Channel ch = admin();
        try {
            return ch.queueDeclarePassive(queueName).getMessageCount();
        } finally {
            ch.close();
        }
    }

    /** Takes every message now in {@code queueName} (acked), for inspection. */
    List<GetResponse> drain(String queueName) throws Exception {
        List<GetResponse> out = new ArrayList<>();
        Channel ch = admin();
        try {
            for (GetResponse r; (r = ch.basicGet(queueName, true)) != null; ) {
                out.add(r);
            }
        } finally {
            ch.close();
        }
        return out;
    }

    List<String> allQueues(RetryPolicy retry) {
        List<String> names = new ArrayList<>();
        names.add(queue);
        names.add(Topology.deadLetterQueue(queue));
        for (Duration d : retry.backoff()) {
            names.add(Topology.delayQueue(queue, d));
        }
        return names;
    }

    /** Whether the work queue, its dead-letter queue and its delay queues for {@code retry} are all empty. */
    boolean allEmpty(RetryPolicy retry) throws Exception {
        for (String q : allQueues(retry)) {
            if (messageCount(q) != 0) {
                return false;
            }
        }
        return true;
    }

    private final List<RetryPolicy> policies = new ArrayList<>();

    RetryPolicy remember(RetryPolicy retry) {
        policies.add(retry);
        return retry;
    }

    @Override
    public void close() throws Exception {
        for (int i = closeables.size() - 1; i >= 0; i--) {
            try {
                closeables.get(i).close();
            } catch (Exception e) {
                // clean-up continues
            }
        }
        Connection c = factory().newConnection("once-test-cleanup");
        try {
            List<String> names = new ArrayList<>(extraQueues);
            names.add(queue);
            names.add(Topology.deadLetterQueue(queue));
            for (RetryPolicy p : policies) {
                names.addAll(allQueues(p));
            }
            for (String name : names) {
                Channel ch = c.createChannel();
                ch.queueDelete(name);
                ch.close();
            }
        } finally {
            c.close();
        }
        for (Connection conn : connections) {
            try {
                if (conn.isOpen()) {
                    conn.abort();
                }
            } catch (Exception e) {
                // already gone
            }
        }
    }
}
