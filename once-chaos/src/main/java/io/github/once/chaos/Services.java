package io.github.once.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the runs share: the three-node RabbitMQ cluster, a private PostgreSQL and a private Redis, each store behind
 * a stall proxy, all in one temporary folder that is deleted at the end. The machine's own PostgreSQL holds the
 * effects of the modes whose store is not PostgreSQL (no fault ever touches it).
 */
final class Services {

    static final String SHARED_POSTGRES = "jdbc:postgresql://127.0.0.1:5432/test";

    private final Path dir;
    private final RabbitCluster cluster;
    private final PrivatePostgres postgres;
    private final PrivateRedis redis;
    private StallProxy postgresProxy;
    private StallProxy redisProxy;
    private Teardown teardown;

    private Services(Path dir, Ports ports) {
        this.dir = dir;
        this.cluster = new RabbitCluster(dir.resolve("rabbit"), 3, ports.firstAmqp(), ports.firstDist());
        this.postgres = new PrivatePostgres(dir.resolve("pg"), ports.postgres());
        this.redis = new PrivateRedis(dir.resolve("redis/data"), ports.redis());
    }

    /**
     * The spare ports the private services listen on, all below Linux's ephemeral range (32768 and up), where a
     * client connection of any process may hold the port a server wants to bind.
     */
    record Ports(int firstAmqp, int firstDist, int postgres, int redis) {
        static Ports defaults() {
            return new Ports(5701, 25701, 25432, 26379);
        }
    }

    /** Starts everything (the stores while the cluster boots) and registers its stop with {@code teardown}. */
    static Services start(Teardown teardown, Ports ports, Path keepLogsIn) throws Exception {
        Path dir = Files.createTempDirectory("once-chaos-");
        // The rabbitmq and postgres users must reach their folders inside.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        teardown.add("delete " + dir, () -> Shell.deleteTree(dir));
        teardown.add("keep the services' logs", () -> keepLogs(dir, keepLogsIn));
        Services s = new Services(dir, ports);
        s.teardown = teardown;
        teardown.add("stop the RabbitMQ cluster", s.cluster);
        teardown.add("stop the private PostgreSQL", s.postgres);
        teardown.add("stop the private Redis", s.redis);
        CompletableFuture<Void> stores = CompletableFuture.runAsync(() -> {
            try {
                s.postgres.start();
                s.redis.start();
            } catch (Exception e) {
                throw new IllegalStateException("could not start the private stores", e);
            }
        });
        s.cluster.start();
        stores.join();
        s.postgresProxy = new StallProxy(s.postgres.port());
        s.redisProxy = new StallProxy(s.redis.port());
        teardown.add("close the proxies", () -> {
            s.postgresProxy.close();
            s.redisProxy.close();
        });
        // Quorum queues dead-letter at most once by default: a delay queue's expired copy could be dropped while
        // the work queue elects a leader. At least once (with reject-publish) is what such a topology needs.
        s.cluster.setPolicy("once-chaos-delay", "\\.once\\.delay\\.",
                "{\"dead-letter-strategy\":\"at-least-once\",\"overflow\":\"reject-publish\"}", "queues");
        return s;
    }

    /** The servers' own logs, copied out of the folder that is about to go. */
    private static void keepLogs(Path dir, Path target) throws IOException {
        Path logs = target.resolve("services");
        Shell.deleteTree(logs);
        Files.createDirectories(logs);
        Shell.run(List.of("sh", "-c", "cd '" + dir + "' && find . \\( -name '*.log' -o -name server.out \\) "
                + "-exec cp --parents {} '" + logs.toAbsolutePath() + "' \\;"), 60);
    }

    /** Something a run made that must go even when the harness is stopped in the middle of it. */
    void onTeardown(String what, AutoCloseable action) {
        teardown.add(what, action);
    }

    Path dir() {
        return dir;
    }

    RabbitCluster cluster() {
        return cluster;
    }

    PrivatePostgres postgres() {
        return postgres;
    }

    PrivateRedis redis() {
        return redis;
    }

    String redisUriViaProxy() {
        return "redis://127.0.0.1:" + redisProxy.port();
    }

    String postgresUrlViaProxy() {
        return postgres.url(postgresProxy.port());
    }

    void stall(long millis) {
        postgresProxy.stall(millis);
        redisProxy.stall(millis);
    }

    /** After the faults: every node, store and proxy back to normal. */
    void recover() throws IOException {
        stall(0);
        cluster.ensureAllRunning();
        redis.ensureRunning();
        postgres.ensureRunning();
    }
}
