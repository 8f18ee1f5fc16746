package io.github.once.outbox;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/**
 * Relay JVMs started from the test classpath ({@link RelayMain}), killed with {@code destroyForcibly()}, and cut off
 * from the broker with {@code rabbitmqctl close_connection}. Each writes its log to {@code target/relay-logs/}.
 */
final class RelayProcesses implements AutoCloseable {

    private final String url;
    private final String user;
    private final String table;
    private final Duration lease;
    private final Map<String, Process> running = new LinkedHashMap<>();
    private final Path logs = Path.of("target", "relay-logs");

    RelayProcesses(String url, String user, String table, Duration lease) throws IOException {
        this.url = url;
        this.user = user;
        this.table = table;
        this.lease = lease;
        Files.createDirectories(logs);
    }

    synchronized void start(String name) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                System.getProperty("java.class.path"), RelayMain.class.getName(), url, user, table, name,
                Long.toString(lease.toMillis()));
        pb.redirectErrorStream(true);
        File log = logs.resolve(table + "-" + name + ".log").toFile();
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log));
        running.put(name, pb.start());
    }

    /** Waits until the relay's log says it started (its JVM is up and its connections are open). */
    void awaitReady(String name) {
        Path log = logs.resolve(table + "-" + name + ".log");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(log)
                && Files.readString(log, StandardCharsets.UTF_8).contains("READY " + name));
    }

    /** Kills the relay's JVM at once: no shutdown hooks, no clean-up, whatever it was doing. */
    synchronized void kill(String name) throws InterruptedException {
        Process p = running.remove(name);
        p.destroyForcibly();
        p.waitFor(10, TimeUnit.SECONDS);
    }

    /** Closes the relay's broker connections from the broker's side; its client recovers them. */
    int cutBrokerConnections(String name) throws IOException {
        String wanted = "\"" + RelayMain.connectionName(name) + "\"";
        List<String> ids = new ArrayList<>();
        for (String line : RabbitCtl.run("-q", "list_connections", "pid", "client_properties")) {
            if (line.contains(wanted)) {
                ids.add(line.substring(0, line.indexOf('\t')));
            }
        }
        for (String id : ids) {
            RabbitCtl.run("close_connection", id, "outbox crash test");
        }
        return ids.size();
    }

    /** {@link #cutBrokerConnections} for a background thread: the count of connections cut. */
    int cutBrokerConnectionsQuietly(String name) {
        try {
            return cutBrokerConnections(name);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    synchronized List<String> names() {
        return List.copyOf(running.keySet());
    }

    @Override
    public synchronized void close() {
        running.values().forEach(Process::destroyForcibly);
        running.clear();
    }
}
