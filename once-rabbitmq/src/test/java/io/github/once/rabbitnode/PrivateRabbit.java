package io.github.once.rabbitnode;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.tls.PrivateServer;
import io.github.once.tls.TestCertificates;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLContext;

import static org.awaitility.Awaitility.await;

/**
 * A RabbitMQ node of its own that speaks AMQP only over TLS, on {@value #PORT} of {@code 127.0.0.1} and of
 * {@link TestCertificates#UNNAMED_HOST} (distribution port {@value #DIST_PORT}), with the certificates the test
 * made. Started as the {@code rabbitmq} user with the Debian package's scripts, its data in a folder of its own;
 * the machine's shared node is never touched. The users a test needs are definitions the node loads at boot: one
 * {@code rabbitmqctl} call boots an Erlang VM of its own (seconds on a busy machine), so the tests make none.
 * {@link #close()} stops it and deletes the folder, and a shutdown hook does so if the test JVM ends first. Shared
 * with other modules' tests through this module's test jar.
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

    /**
     * A user of the node's only virtual host, {@code /}, with these permission regexes (as {@code rabbitmqctl
     * set_permissions} takes them). {@code guest}, with every permission, is always there.
     */
    public record User(String name, String password, String configure, String write, String read) {
    }

    /** A node with certificates of its own, made in its folder (deleted with it), and {@code users}. */
    public static PrivateRabbit start(User... users) throws IOException {
        Path dir = Files.createTempDirectory("once-tls-rabbit");
        return start(TestCertificates.make(dir.resolve("certs")), dir, users);
    }

    /** Boots the node and returns once it accepts a verified TLS connection; fails loudly if it cannot start. */
    public static PrivateRabbit start(TestCertificates certs, User... users) throws IOException {
        return start(certs, Files.createTempDirectory("once-tls-rabbit"), users);
    }

    private static PrivateRabbit start(TestCertificates certs, Path dir, User... users) throws IOException {
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
        Files.writeString(dir.resolve("definitions.json"), definitions(users));
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
                // A node that imports definitions at boot makes no default user: guest is among them.
                "load_definitions = " + dir.resolve("definitions.json"),
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

    /**
     * SIGTERM to the node's VM (Erlang stops itself on it), SIGKILL to whatever is left after 30 s. Not
     * {@code rabbitmqctl stop}, which boots a VM of its own; the node's data is deleted next anyway.
     */
    @Override
    protected void stopServer() {
        Optional<ProcessHandle> vm = vmPid().flatMap(ProcessHandle::of);
        vm.ifPresent(ProcessHandle::destroy);
        try {
            if (vm.isPresent()) {
                vm.get().onExit().get(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            System.err.println(NODE + " did not stop on SIGTERM within 30 s; killing it: " + e);
        }
        vm.ifPresent(ProcessHandle::destroyForcibly);
        server.descendants().forEach(ProcessHandle::destroyForcibly);
        server.destroyForcibly();
        try {
            server.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * The definitions file: guest and {@code users} on {@code /}, written with Jackson's generator (it escapes the
     * regexes' backslashes).
     */
    static String definitions(User... users) throws IOException {
        List<User> all = new ArrayList<>();
        all.add(new User("guest", "guest", ".*", ".*", ".*"));
        all.addAll(List.of(users));
        StringWriter out = new StringWriter();
        try (JsonGenerator json = new JsonFactory().createGenerator(out)) {
            json.writeStartObject();
            json.writeArrayFieldStart("vhosts");
            json.writeStartObject();
            json.writeStringField("name", "/");
            json.writeEndObject();
            json.writeEndArray();
            json.writeArrayFieldStart("users");
            for (User u : all) {
                json.writeStartObject();
                json.writeStringField("name", u.name());
                json.writeStringField("password_hash", passwordHash(u.password()));
                json.writeStringField("hashing_algorithm", "rabbit_password_hashing_sha256");
                json.writeArrayFieldStart("tags");
                json.writeEndArray();
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeArrayFieldStart("permissions");
            for (User u : all) {
                json.writeStartObject();
                json.writeStringField("user", u.name());
                json.writeStringField("vhost", "/");
                json.writeStringField("configure", u.configure());
                json.writeStringField("write", u.write());
                json.writeStringField("read", u.read());
                json.writeEndObject();
            }
            json.writeEndArray();
            json.writeEndObject();
        }
        return out.toString();
    }

    /** RabbitMQ's SHA-256 password hash: base64 of a 4-byte salt, then SHA-256 of the salt and the UTF-8 password. */
    private static String passwordHash(String password) {
        byte[] salt = new byte[4];
        new SecureRandom().nextBytes(salt);
        try {
            MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
            sha256.update(salt);
            byte[] digest = sha256.digest(password.getBytes(StandardCharsets.UTF_8));
            byte[] salted = new byte[salt.length + digest.length];
            System.arraycopy(salt, 0, salted, 0, salt.length);
            System.arraycopy(digest, 0, salted, salt.length, digest.length);
            return Base64.getEncoder().encodeToString(salted);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
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
