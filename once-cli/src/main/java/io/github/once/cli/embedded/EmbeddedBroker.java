package io.github.once.cli.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

import org.apache.qpid.server.SystemLauncher;

/**
 * An AMQP 0-9-1 broker in this process (Apache Qpid Broker-J with its memory store), so the demo needs nothing
 * installed. It lives only in the CLI: no library module depends on it.
 *
 * <p>It differs from RabbitMQ in ways the demo must respect: it refuses the {@code x-dead-letter-*},
 * {@code x-message-ttl} and {@code x-queue-type} queue arguments (closing the connection with 542), treats a
 * reject without requeue as a requeue unless configured otherwise, and never sets {@code x-death}.
 */
public final class EmbeddedBroker implements AutoCloseable {

    /** The differences from RabbitMQ that matter to consumers, printed by the demo so none is hidden. */
    public static final String DIFFERENCES = "embedded broker (Apache Qpid Broker-J, memory store): refuses "
            + "x-dead-letter-*, x-message-ttl and x-queue-type queue arguments, never sets x-death, and treats "
            + "reject without requeue as requeue; the demo declares plain queues and dead-letters by publishing";

    private final SystemLauncher launcher;
    private final Path workDir;
    private final int port;

    private EmbeddedBroker(SystemLauncher launcher, Path workDir, int port) {
        this.launcher = launcher;
        this.workDir = workDir;
        this.port = port;
    }

    /** Starts a broker on a free local port, with user guest/guest and one virtual host named {@code default}. */
    public static EmbeddedBroker start() {
        Path workDir;
        try {
            workDir = Files.createTempDirectory("once-broker-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a work directory for the embedded broker", e);
        }
        Exception last = null;
        // A free port can be taken between probing and binding; a second try settles it.
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = freePort();
            SystemLauncher launcher = new SystemLauncher();
            try {
                Path config = workDir.resolve("config-" + attempt + ".json");
                Files.writeString(config, initialConfig(port), StandardCharsets.UTF_8);
                Map<String, Object> attributes = new HashMap<>();
                attributes.put("type", "Memory");
                attributes.put("initialConfigurationLocation", config.toUri().toString());
                attributes.put("startupLoggedToSystemOut", false);
                Map<String, String> context = new HashMap<>();
                context.put("qpid.work_dir", workDir.toString());
                context.put("qpid.broker.defaultPreferenceStoreAttributes", "{\"type\": \"Noop\"}");
                attributes.put("context", context);
                launcher.startup(attributes);
                return new EmbeddedBroker(launcher, workDir, port);
            } catch (Exception e) {
                last = e;
                try {
                    launcher.shutdown();
                } catch (RuntimeException ignored) {
                    // it did not start; nothing to stop
                }
            }
        }
        deleteQuietly(workDir);
        throw new IllegalStateException("the embedded broker did not start: " + last.getMessage(), last);
    }

    public int port() {
        return port;
    }

    /** An AMQP URI for the Java client. */
    public String uri() {
        return "amqp://guest:guest@127.0.0.1:" + port + "/default";
    }

    @Override
    public void close() {
        try {
            launcher.shutdown();
        } finally {
            deleteQuietly(workDir);
        }
    }

    private static String initialConfig(int port) {
        return """
                {
                  "name": "once-embedded",
                  "modelVersion": "8.0",
                  "authenticationproviders": [ {
                    "name": "plain", "type": "Plain", "secureOnlyMechanisms": [],
                    "users": [ { "name": "guest", "type": "managed", "password": "guest" } ]
                  } ],
                  "ports": [ {
                    "name": "AMQP", "port": %d, "bindingAddress": "127.0.0.1",
                    "authenticationProvider": "plain",
                    "protocols": [ "AMQP_0_9_1" ],
                    "virtualhostaliases": [
                      { "name": "nameAlias", "type": "nameAlias" },
                      { "name": "defaultAlias", "type": "defaultAlias" }
                    ]
                  } ],
                  "virtualhostnodes": [ {
                    "name": "default", "type": "Memory", "defaultVirtualHostNode": "true",
                    "virtualHostInitialConfiguration": "{\\"type\\": \\"Memory\\"}"
                  } ]
                }
                """.formatted(port);
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free local port for the embedded broker", e);
        }
    }

    private static void deleteQuietly(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory left behind is harmless
        }
    }
}
