package io.github.once.cli.demo;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.cli.CliException;
import io.github.once.cli.ServiceUris;
import io.github.once.cli.embedded.EmbeddedBroker;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Everything a demo run needs, opened up front so a bad target fails before any cell runs. */
final class DemoSetup implements AutoCloseable {

    private final List<AutoCloseable> resources = new ArrayList<>();
    private final List<ConsumerStyle> styles = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final String runId = newRunId();
    private ConnectionFactory amqp;
    private String broker;
    private boolean embedded;

    private DemoSetup() {
    }

    static DemoSetup open(DemoTargets targets) {
        DemoSetup s = new DemoSetup();
        try {
            // Stores first: a wrong Redis or database URL fails fast, before the broker starts.
            StatefulRedisConnection<String, String> guardConnection = null;
            StatefulRedisConnection<String, String> redis = null;
            if (targets.redisUri() != null) {
                RedisClient client = s.openRedis();
                guardConnection = s.redisConnection(client, targets.redisUri());
                redis = s.redisConnection(client, targets.redisUri());
                StatefulRedisConnection<String, String> cleanup = redis;
                s.resources.add(cleanup::close);
            }
            OnceRows.JdbcTarget jdbc = targets.jdbcUrl() == null ? null : OnceRows.probe(targets.jdbcUrl());
            s.openBroker(targets.amqpUri());
            s.styles.add(TrapStyle.ackFirst());
            s.styles.add(TrapStyle.noGuard());
            s.styles.add(TrapStyle.checkThenLock("memory", new MapCheckThenLockGuard()));
            if (guardConnection != null) {
                s.styles.add(TrapStyle.checkThenLock("redis", new RedisCheckThenLockGuard(guardConnection,
                        "once-demo:" + s.runId + ":msg:processed:")));
            }
            OnceRows.add(s, redis, targets.redisUri(), jdbc);
            return s;
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private void openBroker(String uri) {
        if (uri == null) {
            EmbeddedBroker b = EmbeddedBroker.start();
            resources.add(b);
            embedded = true;
            amqp = ServiceUris.amqp(b.uri(), "the embedded broker");
            broker = "the embedded broker (Apache Qpid Broker-J, in-process)";
            notes.add(EmbeddedBroker.DIFFERENCES);
        } else {
            amqp = ServiceUris.amqp(uri, "--amqp-uri");
        }
        amqp.setAutomaticRecoveryEnabled(false);
        amqp.setTopologyRecoveryEnabled(false);
        amqp.setConnectionTimeout(5000);
        amqp.setHandshakeTimeout(5000);
        amqp.setRequestedHeartbeat(15);
        if (embedded) {
            return;
        }
        try (Connection c = amqp.newConnection("once-demo-probe")) {
            Map<String, Object> server = c.getServerProperties();
            broker = server.getOrDefault("product", "broker") + " " + server.getOrDefault("version", "") + " at "
                    + amqp.getHost() + ":" + amqp.getPort();
        } catch (Exception e) {
            throw ServiceUris.unreachable(e, "the broker at " + amqp.getHost() + ":" + amqp.getPort(), reason(e));
        }
    }

    private RedisClient openRedis() {
        RedisClient client = RedisClient.create();
        resources.add(client::shutdown);
        return client;
    }

    StatefulRedisConnection<String, String> redisConnection(RedisClient client, String uri) {
        RedisURI parsed = ServiceUris.redis(uri);
        try {
            return client.connect(parsed);
        } catch (RuntimeException e) {
            throw CliException.unreachable("cannot reach Redis at " + parsed.getHost() + ":" + parsed.getPort() + " ("
                    + reason(e) + ")", e);
        }
    }

    void addStyle(ConsumerStyle style) {
        styles.add(style);
    }

    void addResource(AutoCloseable resource) {
        resources.add(resource);
    }

    void addNote(String note) {
        notes.add(note);
    }

    /** Fresh per run: cell ids, namespaces, queues, keys and rows all start with it. */
    /** The key namespaces of every cell this run may have: one per style and scenario. */
    List<String> namespaces() {
        List<String> namespaces = new ArrayList<>();
        for (int row = 0; row < styles.size(); row++) {
            for (Scenario scenario : Scenario.values()) {
                namespaces.add(Cell.id(runId, row, scenario));
            }
        }
        return namespaces;
    }

    String runId() {
        return runId;
    }

    private static String newRunId() {
        byte[] random = new byte[3];
        new java.security.SecureRandom().nextBytes(random);
        return java.util.HexFormat.of().formatHex(random);
    }

    boolean embedded() {
        return embedded;
    }

    List<ConsumerStyle> styles() {
        return styles;
    }

    List<String> notes() {
        return notes;
    }

    ConnectionFactory amqp() {
        return amqp;
    }

    String broker() {
        return broker;
    }

    static String reason(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
        return root == e ? message : message + "; " + (e.getMessage() == null ? e.getClass().getSimpleName()
                : e.getMessage());
    }

    @Override
    public void close() {
        for (ConsumerStyle s : styles) {
            s.close();
        }
        for (int i = resources.size() - 1; i >= 0; i--) {
            try {
                resources.get(i).close();
            } catch (Exception e) {
                // closing demo resources on the way out: nothing left to protect
            }
        }
    }
}
