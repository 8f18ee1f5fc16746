package io.github.once.chaos;

import com.rabbitmq.client.Address;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A RabbitMQ cluster of its own on this machine: nodes {@code chaos1@localhost}... on spare ports, started with
 * the Debian package's scripts as the {@code rabbitmq} user (sharing the machine's epmd and Erlang cookie), each
 * with its own data, log, plugin and configuration files, so the shared node is never touched. The nodes find
 * each other through the classic configuration list; the first one boots alone, the others join it.
 */
final class RabbitCluster implements AutoCloseable {

    private static final String SCRIPTS = "/usr/lib/rabbitmq/bin/";
    private static final String RABBIT_HOME = "/var/lib/rabbitmq";
    private static final Pattern LEADER = Pattern.compile("(chaos\\d+@localhost)\\s+.*\\bleader\\b");

    private final Path dir;
    private final List<Node> nodes = new ArrayList<>();
    private volatile boolean closed;

    /** One node: its name, AMQP port and folder. */
    record Node(int index, String name, int amqpPort, int distPort, Path dir) {
        Path pidFile() {
            return dir.resolve("pid");
        }
    }

    RabbitCluster(Path dir, int size, int firstAmqpPort, int firstDistPort) {
        this.dir = dir;
        for (int i = 1; i <= size; i++) {
            nodes.add(new Node(i, "chaos" + i + "@localhost", firstAmqpPort + i - 1, firstDistPort + i - 1,
                    dir.resolve("node" + i)));
        }
    }

    List<Node> nodes() {
        return nodes;
    }

    List<Address> addresses() {
        List<Address> addresses = new ArrayList<>();
        for (Node n : nodes) {
            addresses.add(new Address("127.0.0.1", n.amqpPort()));
        }
        return addresses;
    }

    /** The AMQP addresses as {@code host:port,...}, for a worker's command line. */
    String addressList() {
        List<String> parts = new ArrayList<>();
        for (Node n : nodes) {
            parts.add("127.0.0.1:" + n.amqpPort());
        }
        return String.join(",", parts);
    }

    void start() throws IOException {
        long t0 = System.nanoTime();
        for (Node n : nodes) {
            writeFiles(n);
        }
        Shell.check(List.of("chown", "-R", "rabbitmq:rabbitmq", dir.toString()), 30);
        boot(nodes.get(0));
        awaitStartup(nodes.get(0));
        for (Node n : nodes.subList(1, nodes.size())) {
            boot(n);
        }
        for (Node n : nodes.subList(1, nodes.size())) {
            awaitStartup(n);
        }
        awaitRunning(nodes.size(), 120);
        System.out.printf("RabbitMQ cluster of %d nodes up in %.0f s%n", nodes.size(), (System.nanoTime() - t0) / 1e9);
    }

    private void writeFiles(Node n) throws IOException {
        Files.createDirectories(n.dir().resolve("mnesia"));
        Files.createDirectories(n.dir().resolve("log"));
        // Only what these nodes need: the machine's own env file names the shared node.
        Files.writeString(n.dir().resolve("rabbitmq-env.conf"), "ERL_EPMD_ADDRESS=127.0.0.1\n");
        Files.writeString(n.dir().resolve("enabled_plugins"), "[].\n");
        StringBuilder conf = new StringBuilder()
                .append("listeners.tcp.local = 127.0.0.1:").append(n.amqpPort()).append('\n')
                .append("loopback_users = none\n")
                .append("cluster_formation.peer_discovery_backend = classic_config\n")
                .append("cluster_formation.randomized_startup_delay_range.min = 0\n")
                .append("cluster_formation.randomized_startup_delay_range.max = 1\n")
                .append("cluster_partition_handling = pause_minority\n");
        for (Node other : nodes) {
            conf.append("cluster_formation.classic_config.nodes.").append(other.index()).append(" = ")
                    .append(other.name()).append('\n');
        }
        Files.writeString(n.dir().resolve("rabbitmq.conf"), conf.toString());
        // A delay queue's at-least-once dead-letter copy whose confirm never came (its target's leader died) is
        // sent again only after this timeout, minutes by default: longer than a run waits for quiet queues, and
        // invisible in their message counts meanwhile. Seconds here, so a late copy arrives while the run waits.
        Files.writeString(n.dir().resolve("advanced.config"),
                "[{rabbit, [{dead_letter_worker_publisher_confirm_timeout, 5000}]}].\n");
    }

    private Map<String, String> env(Node n) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("HOME", RABBIT_HOME);
        env.put("RABBITMQ_CONF_ENV_FILE", n.dir().resolve("rabbitmq-env.conf").toString());
        env.put("RABBITMQ_NODENAME", n.name());
        env.put("RABBITMQ_NODE_PORT", Integer.toString(n.amqpPort()));
        env.put("RABBITMQ_DIST_PORT", Integer.toString(n.distPort()));
        env.put("RABBITMQ_MNESIA_BASE", n.dir().resolve("mnesia").toString());
        env.put("RABBITMQ_LOG_BASE", n.dir().resolve("log").toString());
        env.put("RABBITMQ_ENABLED_PLUGINS_FILE", n.dir().resolve("enabled_plugins").toString());
        env.put("RABBITMQ_PID_FILE", n.pidFile().toString());
        env.put("RABBITMQ_CONFIG_FILE", n.dir().resolve("rabbitmq.conf").toString());
        env.put("RABBITMQ_ADVANCED_CONFIG_FILE", n.dir().resolve("advanced.config").toString());
        env.put("ERL_FLAGS", "-kernel inet_dist_use_interface {127,0,0,1}");
        return env;
    }

    /** Starts the node's VM in the background; its output goes to its own folder. */
    private void boot(Node n) throws IOException {
        if (closed) {
            throw new IllegalStateException("the harness is stopping: " + n.name() + " stays down");
        }
        Files.deleteIfExists(n.pidFile());
        new ProcessBuilder(Shell.asUser("rabbitmq", env(n), List.of(SCRIPTS + "rabbitmq-server")))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(n.dir().resolve("server.out").toFile()))
                .start();
    }

    private void awaitStartup(Node n) {
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(n.pidFile())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(n.name() + " wrote no pid file; see " + n.dir().resolve("log"));
            }
            Pause.millis(200);
        }
        Shell.check(ctl(n, "await_startup", "--timeout", "120"), 130);
    }

    /** Waits until {@code expected} nodes are running in the cluster, as the first live node sees it. */
    void awaitRunning(int expected, int timeoutSeconds) {
        long deadline = System.nanoTime() + timeoutSeconds * 1_000_000_000L;
        String last = "";
        while (System.nanoTime() < deadline) {
            for (Node n : nodes) {
                Shell.Result r = Shell.run(ctl(n, "cluster_status", "--formatter", "json"), 30);
                if (r.ok()) {
                    last = r.output();
                    if (runningNodes(last) >= expected) {
                        return;
                    }
                    break;
                }
            }
            Pause.millis(500);
        }
        throw new IllegalStateException("the cluster never had " + expected + " running nodes: " + last);
    }

    static int runningNodes(String clusterStatusJson) {
        Matcher m = Pattern.compile("\"running_nodes\"\\s*:\\s*\\[([^\\]]*)\\]").matcher(clusterStatusJson);
        if (!m.find()) {
            return 0;
        }
        return (int) Pattern.compile("chaos\\d+@localhost").matcher(m.group(1)).results().count();
    }

    List<String> ctl(Node n, String... args) {
        return tool("rabbitmqctl", n, args);
    }

    private List<String> tool(String tool, Node n, String... args) {
        List<String> cmd = new ArrayList<>(List.of(SCRIPTS + tool, "-n", n.name()));
        cmd.addAll(List.of(args));
        return Shell.asUser("rabbitmq", Map.of("HOME", RABBIT_HOME), cmd);
    }

    /** The node that leads the quorum queue, as a live node reports it. */
    Optional<Node> leaderOf(String queue) {
        for (Node n : nodes) {
            Shell.Result r = Shell.run(tool("rabbitmq-queues", n, "quorum_status", queue), 30);
            if (!r.ok()) {
                continue;
            }
            Matcher m = LEADER.matcher(r.output());
            if (m.find()) {
                String name = m.group(1);
                return nodes.stream().filter(x -> x.name().equals(name)).findFirst();
            }
        }
        return Optional.empty();
    }

    void closeAllConnections(Node n) {
        Shell.check(ctl(n, "close_all_connections", "once-chaos fault"), 60);
    }

    /** Stops and starts the broker application, keeping the VM: every connection to it is closed. */
    void restartApp(Node n) {
        Shell.check(ctl(n, "stop_app"), 120);
        Shell.check(ctl(n, "start_app"), 180);
    }

    /** SIGKILL to the node's VM, then a fresh boot; returns once it runs in the cluster again. */
    void killAndRestart(Node n) throws IOException {
        killVm(n);
        boot(n);
        awaitStartup(n);
        awaitRunning(nodes.size(), 120);
    }

    private void killVm(Node n) throws IOException {
        if (Files.exists(n.pidFile())) {
            String pid = Files.readString(n.pidFile()).trim();
            if (!pid.isEmpty()) {
                long id = Long.parseLong(pid);
                // Only the VM this node wrote: a pid left from an earlier boot may belong to anything by now.
                Optional<ProcessHandle> vm = ProcessHandle.of(id).filter(h -> startedFor(h, n));
                vm.ifPresent(h -> {
                    h.destroyForcibly();
                    h.onExit().join();
                });
            }
        }
    }

    /** Whether the process got this node's name from us (the VM's arguments do not carry it; its environment does). */
    private static boolean startedFor(ProcessHandle h, Node n) {
        try {
            String env = new String(Files.readAllBytes(Path.of("/proc", Long.toString(h.pid()), "environ")),
                    java.nio.charset.StandardCharsets.UTF_8);
            return env.contains("RABBITMQ_NODENAME=" + n.name() + "\0");
        } catch (IOException e) {
            return false;
        }
    }

    /** Makes sure every node runs (after a fault that failed half way). */
    void ensureAllRunning() throws IOException {
        for (Node n : nodes) {
            if (!Shell.run(ctl(n, "await_startup", "--timeout", "5"), 20).ok()) {
                Shell.Result startApp = Shell.run(ctl(n, "start_app"), 120);
                if (!startApp.ok()) {
                    killAndRestart(n);
                }
            }
        }
        awaitRunning(nodes.size(), 120);
    }

    /** Sets a policy on every node's cluster (they share one). */
    void setPolicy(String name, String pattern, String definitionJson, String applyTo) {
        Shell.check(ctl(nodes.get(0), "set_policy", "--apply-to", applyTo, name, pattern, definitionJson), 60);
    }

    @Override
    public void close() {
        closed = true; // a fault still running in another thread must not boot a node again
        for (Node n : nodes) {
            Shell.run(ctl(n, "stop"), 60);
        }
        for (Node n : nodes) {
            try {
                killVm(n);
            } catch (IOException | RuntimeException e) {
                System.err.println("could not stop " + n.name() + ": " + e);
            }
        }
    }
}
