package io.github.once.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A MariaDB server of its own ({@code mariadbd}, made with {@code mariadb-install-db}) in a folder owned by the
 * {@code mysql} user, on a spare port of 127.0.0.1, with none of the machine's option files; the machine's shared
 * server is never touched. Its database {@value #DATABASE} holds the JDBC store's records and the transactional
 * mode's effects. The consumers (and the harness's pool for the effects table) connect as {@value #USER}; the
 * harness's admin sessions as {@code root} (no password, 127.0.0.1 only), which a connection kill spares.
 */
final class PrivateMariaDb implements AutoCloseable {

    static final String DATABASE = "chaos";
    /** The consumers' account: {@link #killConnections()} ends every connection of it. */
    static final String USER = "once";

    private final Path dir;
    private final int port;
    private Process process;
    private boolean closed;

    PrivateMariaDb(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    int port() {
        return port;
    }

    String url(int viaPort) {
        return "jdbc:mariadb://127.0.0.1:" + viaPort + "/" + DATABASE;
    }

    String directUrl() {
        return url(port);
    }

    synchronized void start() throws IOException, SQLException {
        Files.createDirectories(dir);
        // mariadbd runs as mysql (it drops root itself with --user) and must write its folder.
        Shell.check(List.of("chown", "mysql:mysql", dir.toString()), 30);
        Shell.check(List.of("mariadb-install-db", "--no-defaults", "--user=mysql", "--datadir=" + data(),
                "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve"), 120);
        startServer();
        try (Connection c = admin(); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + DATABASE);
            st.execute("CREATE USER '" + USER + "'@'127.0.0.1'");
            st.execute("GRANT ALL PRIVILEGES ON " + DATABASE + ".* TO '" + USER + "'@'127.0.0.1'");
        }
    }

    private String data() {
        return dir.resolve("data").toString();
    }

    /** Starts the server on its folder (after a SIGKILL: InnoDB's crash recovery) and waits until it answers. */
    private void startServer() throws IOException {
        if (closed) {
            throw new IllegalStateException("the harness is stopping: MariaDB stays down");
        }
        // --no-defaults first: the machine's my.cnf names the shared server's port, socket and pid file.
        process = new ProcessBuilder(List.of("/usr/sbin/mariadbd", "--no-defaults", "--user=mysql",
                "--datadir=" + data(), "--port=" + port, "--bind-address=127.0.0.1",
                "--socket=" + dir.resolve("mariadbd.sock"), "--pid-file=" + dir.resolve("mariadbd.pid"),
                "--log-error=" + dir.resolve("server.log"), "--skip-name-resolve", "--max-connections=200"))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.out").toFile()))
                .start();
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!answers()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("mariadbd on port " + port + " did not start; its log ends:\n"
                        + logTail());
            }
            Pause.millis(100);
        }
    }

    private boolean answers() {
        try (Connection c = admin()) {
            return c.isValid(1);
        } catch (SQLException e) {
            return false;
        }
    }

    private Connection admin() throws SQLException {
        return DriverManager.getConnection("jdbc:mariadb://127.0.0.1:" + port
                + "/?connectTimeout=1000&socketTimeout=10000", "root", "");
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

    /** A crash (SIGKILL: InnoDB recovers from its redo log on start), then the server again. */
    synchronized void restart() throws IOException {
        kill();
        startServer();
    }

    /**
     * Ends every connection of the consumers' account ({@code KILL CONNECTION}, from an admin session): the
     * clients see their connections close mid-statement. Returns how many it ended.
     */
    int killConnections() throws SQLException {
        try (Connection c = admin(); Statement st = c.createStatement()) {
            List<Long> ids = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT id FROM information_schema.processlist WHERE user = '"
                    + USER + "'")) {
                while (rs.next()) {
                    ids.add(rs.getLong(1));
                }
            }
            int killed = 0;
            for (long id : ids) {
                try {
                    st.execute("KILL CONNECTION " + id);
                    killed++;
                } catch (SQLException e) {
                    if (e.getErrorCode() != 1094) { // ER_NO_SUCH_THREAD: it ended by itself meanwhile
                        throw e;
                    }
                }
            }
            return killed;
        }
    }

    private void kill() {
        if (process != null) {
            Shell.kill9(process); // no InnoDB shutdown, no flush
        }
    }

    synchronized void ensureRunning() throws IOException {
        if (process == null || !process.isAlive()) {
            startServer();
        }
    }

    @Override
    public synchronized void close() {
        closed = true; // a fault still running in another thread must not start it again
        kill();
    }
}
