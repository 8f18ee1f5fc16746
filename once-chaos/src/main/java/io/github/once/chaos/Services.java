package io.github.once.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * What the runs share: the three-node RabbitMQ cluster, a private PostgreSQL, a private Redis and a private MariaDB,
 * each store behind a stall proxy, all in one temporary folder that is deleted at the end. The machine's own
 * PostgreSQL holds the effects of the modes whose store is not a database (no fault ever touches it).
 */
final class Services {

    static final String SHARED_POSTGRES = "jdbc:postgresql://127.0.0.1:5432/test";

    private final Path dir;
    private final RabbitCluster cluster;
    private final PrivatePostgres postgres;
    private final PrivateRedis redis;
    private final PrivateMariaDb mariadb;
    private StallProxy postgresProxy;
    private StallProxy redisProxy;
    private StallProxy mariadbProxy;
    private Teardown teardown;

    private Services(Path dir, Ports ports) {
        this.dir = dir;
        this.cluster = new RabbitCluster(dir.resolve("rabbit"), 3, ports.firstAmqp(), ports.firstDist());
        this.postgres = new PrivatePostgres(dir.resolve("pg"), ports.postgres());
        this.redis = new PrivateRedis(dir.resolve("redis/data"), ports.redis());
        this.mariadb = new PrivateMariaDb(dir.resolve("mariadb"), ports.mariadb());
    }

    /**
     * The spare ports the private services listen on, all below Linux's ephemeral range (32768 and up), where a
     * client connection of any process may hold the port a server wants to bind.
     */
    record Ports(int firstAmqp, int firstDist, int postgres, int redis, int mariadb) {
        static Ports defaults() {
            return new Ports(5701, 25701, 25432, 26379, 23306);
        }
    }

    /** Starts everything (the stores while the cluster boots) and registers its stop with {@code teardown}. */
    static Services start(Teardown teardown, Ports ports, Path keepLogsIn) throws Exception {
        Path dir = Files.createTempDirectory("once-chaos-");
        // The rabbitmq, postgres and mysql users must reach their folders inside.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        teardown.add("delete " + dir, () -> Shell.deleteTree(dir));
        teardown.add("keep the services' logs", () -> keepLogs(dir, keepLogsIn));
        Services s = new Services(dir, ports);
        s.teardown = teardown;
        teardown.add("stop the RabbitMQ cluster", s.cluster);
        teardown.add("stop the private PostgreSQL", s.postgres);
        teardown.add("stop the private Redis", s.redis);
        teardown.add("stop the private MariaDB", s.mariadb);
        CompletableFuture<Void> stores = CompletableFuture.runAsync(() -> {
            try {
                s.postgres.start();
                s.redis.start();
                s.mariadb.start();
            } catch (Exception e) {
                throw new IllegalStateException("could not start the private stores", e);
            }
        });
        s.cluster.start();
        stores.join();
        s.postgresProxy = new StallProxy(s.postgres.port());
        s.redisProxy = new StallProxy(s.redis.port());
        s.mariadbProxy = new StallProxy(s.mariadb.port());
        teardown.add("close the proxies", () -> {
            s.postgresProxy.close();
            s.redisProxy.close();
            s.mariadbProxy.close();
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

    PrivateMariaDb mariadb() {
        return mariadb;
    }

    String redisUriViaProxy() {
        return "redis://127.0.0.1:" + redisProxy.port();
    }

    String postgresUrlViaProxy() {
        return postgres.url(postgresProxy.port());
    }

    String mariadbUrlViaProxy() {
        return mariadb.url(mariadbProxy.port());
    }

    void stall(long millis) {
        postgresProxy.stall(millis);
        redisProxy.stall(millis);
        mariadbProxy.stall(millis);
    }

    /** After the faults: every node, store and proxy back to normal. */
    void recover() throws IOException {
        stall(0);
        cluster.ensureAllRunning();
        redis.ensureRunning();
        postgres.ensureRunning();
        mariadb.ensureRunning();
    }
}
