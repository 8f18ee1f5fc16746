package io.github.once.rabbitnode;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.tls.PrivateServer;
import io.github.once.tls.TestCertificates;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;

import static org.awaitility.Awaitility.await;

/**
 * A RabbitMQ node of its own that speaks AMQP only over TLS, on {@value #PORT} of {@code 127.0.0.1} and of
 * {@link TestCertificates#UNNAMED_HOST} (distribution port {@value #DIST_PORT}), with the certificates the test
 * made. Started as the {@code rabbitmq} user with the Debian package's scripts, its data in a folder of its own;
 * the machine's shared node is never touched. {@link #close()} stops it and deletes the folder, and a shutdown hook
 * does so if the test JVM ends first. Shared with other modules' tests through this module's test jar.
 */
public final class PrivateRabbit extends PrivateServer {
    public static final int PORT = 5811;
    public static final int DIST_PORT = 25811;
    public static final String NODE = "once-tls@localhost";

    private static final String SCRIPTS = "/usr/lib/rabbitmq/bin/";
    private static final String RABBIT_HOME = "/var/lib/rabbitmq";

    public final TestCertificates certs;
    private final Process server;

    private PrivateRabbit(TestCertificates certs, Path dir, Process server) {
        super(dir);
        this.certs = certs;
        this.server = server;
    }

    /** A node with certificates of its own, made in its folder (deleted with it). */
    public static PrivateRabbit start() throws IOException {
        Path dir = Files.createTempDirectory("once-tls-rabbit");
        return start(TestCertificates.make(dir.resolve("certs")), dir);
    }

    /** Boots the node and returns once it accepts a verified TLS connection; fails loudly if it cannot start. */
    public static PrivateRabbit start(TestCertificates certs) throws IOException {
        return start(certs, Files.createTempDirectory("once-tls-rabbit"));
    }

    private static PrivateRabbit start(TestCertificates certs, Path dir) throws IOException {
        String leftRunning = "a private node left running? `rabbitmqctl -n " + NODE + " stop`";
        requireFree(PORT, leftRunning);
        requireFree(DIST_PORT, leftRunning);
        for (Path p : List.of(certs.ca, certs.serverCert, certs.serverKey)) {
            Files.copy(p, dir.resolve(p.getFileName()), StandardCopyOption.REPLACE_EXISTING);
        }
        Files.createDirectories(dir.resolve("mnesia"));
        Files.createDirectories(dir.resolve("log"));
        Files.writeString(dir.resolve("rabbitmq-env.conf"), "ERL_EPMD_ADDRESS=127.0.0.1\n");
        Files.writeString(dir.resolve("enabled_plugins"), "[].\n");
        Files.writeString(dir.resolve("rabbitmq.conf"), String.join("\n",
                "listeners.tcp = none",
                "listeners.ssl.1 = 127.0.0.1:" + PORT,
                "listeners.ssl.2 = " + TestCertificates.UNNAMED_HOST + ":" + PORT,
                "ssl_options.cacertfile = " + dir.resolve(certs.ca.getFileName()),
                "ssl_options.certfile = " + dir.resolve(certs.serverCert.getFileName()),
                "ssl_options.keyfile = " + dir.resolve(certs.serverKey.getFileName()),
                // The server asks for no client certificate: the clients prove who they are with a password.
                "ssl_options.verify = verify_none",
                "ssl_options.fail_if_no_peer_cert = false",
                "") );
        run(List.of("chown", "-R", "rabbitmq:rabbitmq", dir.toString()));
        // The folder under /tmp is root's and closed to others: let the rabbitmq user in.
        run(List.of("chmod", "755", dir.toString()));

        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", RABBIT_HOME);
        env.put("RABBITMQ_CONF_ENV_FILE", dir.resolve("rabbitmq-env.conf").toString());
        env.put("RABBITMQ_NODENAME", NODE);
        env.put("RABBITMQ_NODE_PORT", Integer.toString(PORT));
        env.put("RABBITMQ_DIST_PORT", Integer.toString(DIST_PORT));
        env.put("RABBITMQ_MNESIA_BASE", dir.resolve("mnesia").toString());
        env.put("RABBITMQ_LOG_BASE", dir.resolve("log").toString());
        env.put("RABBITMQ_ENABLED_PLUGINS_FILE", dir.resolve("enabled_plugins").toString());
        env.put("RABBITMQ_PID_FILE", dir.resolve("pid").toString());
        env.put("RABBITMQ_CONFIG_FILE", dir.resolve("rabbitmq.conf").toString());
        env.put("ERL_FLAGS", "-kernel inet_dist_use_interface {127,0,0,1}");
        Process server = new ProcessBuilder(asRabbit(env, List.of(SCRIPTS + "rabbitmq-server")))
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("server.out").toFile())
                .start();
        PrivateRabbit rabbit = new PrivateRabbit(certs, dir, server);
        try {
            SSLContext trusted = TestCertificates.trusting(certs.ca);
            await("the private TLS node " + NODE + " accepting a verified connection").atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(300))
                    .failFast("the private node " + NODE + " exited; see " + dir.resolve("server.out"),
                            () -> !server.isAlive())
                    .ignoreExceptions()
                    .until(() -> {
                        try (Connection c = rabbit.factory("127.0.0.1", trusted).newConnection("probe")) {
                            return c.isOpen();
                        }
                    });
        } catch (RuntimeException | Error e) {
            rabbit.close();
            throw e;
        }
        return rabbit;
    }

    /** amqps to {@code host}:{@value #PORT} as guest, trusting what {@code tls} trusts, with the host name checked. */
    public ConnectionFactory factory(String host, SSLContext tls) {
        ConnectionFactory f = new ConnectionFactory();
        f.setHost(host);
        f.setPort(PORT);
        f.setUsername("guest");
        f.setPassword("guest");
        f.useSslProtocol(tls);
        f.enableHostnameVerification();
        f.setConnectionTimeout(5_000);
        f.setNetworkRecoveryInterval(200);
        return f;
    }

    /** The URI of this node for {@code user}, as the CLI takes it. */
    public static String uri(String host, String user, String password) {
        return "amqps://" + user + ":" + password + "@" + host + ":" + PORT + "/%2F";
    }

    /** rabbitmqctl against this node; fails loudly with its output when it does not succeed. */
    public String ctl(String... args) {
        List<String> command = new ArrayList<>(List.of(SCRIPTS + "rabbitmqctl", "-n", NODE));
        command.addAll(List.of(args));
        return run(asRabbit(Map.of("HOME", RABBIT_HOME), command));
    }

    /** rabbitmqctl stop, then SIGKILL to whatever of the node is left. */
    @Override
    protected void stopServer() {
        try {
            ctl("stop");
        } catch (RuntimeException e) {
            System.err.println("rabbitmqctl stop failed for " + NODE + "; killing it: " + e.getMessage());
        }
        vmPid().flatMap(ProcessHandle::of).ifPresent(ProcessHandle::destroyForcibly);
        server.descendants().forEach(ProcessHandle::destroyForcibly);
        server.destroyForcibly();
        try {
            server.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Optional<Long> vmPid() {
        try {
            String pid = Files.readString(dir.resolve("pid")).trim();
            return pid.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(pid));
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static List<String> asRabbit(Map<String, String> env, List<String> command) {
        List<String> full = new ArrayList<>(List.of("runuser", "-u", "rabbitmq", "--", "env"));
        env.forEach((k, v) -> full.add(k + "=" + v));
        full.addAll(command);
        return full;
    }
}
