package io.github.once.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of its own, made with the Debian package's {@code initdb} and {@code pg_ctl} in a folder
 * owned by the {@code postgres} user, on a spare port; the machine's shared server is never touched. Its
 * database {@value #DATABASE} holds the JDBC store's records and the transactional mode's effects.
 */
final class PrivatePostgres implements AutoCloseable {

    static final String DATABASE = "chaos";

    private final Path dir;
    private final int port;
    private final Path bin;
    private volatile boolean closed;

    PrivatePostgres(Path dir, int port) {
        this.dir = dir;
        this.port = port;
        this.bin = newestBin();
    }

    private static Path newestBin() {
        try (Stream<Path> versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            return versions.map(v -> v.resolve("bin"))
                    .filter(b -> Files.isExecutable(b.resolve("pg_ctl")))
                    .max(Comparator.comparingInt(b -> Integer.parseInt(b.getParent().getFileName().toString())))
                    .orElseThrow(() -> new IllegalStateException("no PostgreSQL under /usr/lib/postgresql"));
        } catch (IOException e) {
            throw new IllegalStateException("no PostgreSQL under /usr/lib/postgresql", e);
        }
    }

    int port() {
        return port;
    }

    String url(int viaPort) {
        return "jdbc:postgresql://127.0.0.1:" + viaPort + "/" + DATABASE;
    }

    String directUrl() {
        return url(port);
    }

    void start() throws IOException, SQLException {
        Files.createDirectories(dir);
        Shell.check(List.of("chown", "postgres:postgres", dir.toString()), 30);
        Shell.check(pg("initdb", "-D", data(), "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"), 120);
        startServer();
        try (Connection c = DriverManager.getConnection(url(port).replace("/" + DATABASE, "/postgres"), "postgres", "");
             Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + DATABASE);
        }
    }

    private String data() {
        return dir.resolve("data").toString();
    }

    private List<String> pg(String tool, String... args) {
        List<String> cmd = new java.util.ArrayList<>(List.of(bin.resolve(tool).toString()));
        cmd.addAll(List.of(args));
        return Shell.asUser("postgres", Map.of(), cmd);
    }

    /**
     * Starts the server; a server that exits at once is started once more after a second (its log tail is logged),
     * and a second failure throws with the log's tail, which says why (a port taken, memory refused).
     */
    private void startServer() {
        if (closed) {
            throw new IllegalStateException("the harness is stopping: PostgreSQL stays down");
        }
        List<String> start = pg("pg_ctl", "-D", data(), "-l", dir.resolve("server.log").toString(), "-w", "-t", "60",
                "-o", "-p " + port + " -k " + dir + " -c listen_addresses=127.0.0.1 -c max_connections=200",
                "start");
        Shell.Result first = Shell.run(start, 90);
        if (first.ok()) {
            return;
        }
        System.err.println("PostgreSQL on port " + port + " did not start; once more in 1 s. Its log ends:\n"
                + logTail());
        try {
            Thread.sleep(1_000); // a pause before the one retry, not a wait for an event
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting PostgreSQL", e);
        }
        Shell.Result second = Shell.run(start, 90);
        if (!second.ok()) {
            throw new IllegalStateException("PostgreSQL on port " + port + " did not start twice: "
                    + second.output() + "\nIts log ends:\n" + logTail());
        }
    }

    /** The last lines of the server's log, or why they cannot be read. */
    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("server.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** A crash (immediate shutdown, recovery from the log on start), then the server again. */
    void restart() {
        Shell.run(pg("pg_ctl", "-D", data(), "-m", "immediate", "-w", "-t", "30", "stop"), 60);
        startServer();
    }

    /** Kills every other backend of the database: the clients see their connections close mid-statement. */
    int terminateConnections() throws SQLException {
        try (Connection c = DriverManager.getConnection(directUrl(), "postgres", "");
             Statement st = c.createStatement();
             var rs = st.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                     + "WHERE datname = '" + DATABASE + "' AND pid <> pg_backend_pid()")) {
            rs.next();
            return rs.getInt(1);
        }
    }

    void ensureRunning() {
        if (!Shell.run(pg("pg_ctl", "-D", data(), "status"), 30).ok()) {
            startServer();
        }
    }

    @Override
    public void close() {
        closed = true; // a fault still running in another thread must not start it again
        Shell.run(pg("pg_ctl", "-D", data(), "-m", "immediate", "-w", "-t", "30", "stop"), 60);
    }
}
