package io.github.once.tls;

import io.github.once.jdbc.JdbcDialect;
import io.github.once.jdbc.JdbcIdempotencyStore;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * A PostgreSQL server of its own that accepts TCP connections only over TLS ({@code hostssl} with a password), on
 * {@value #PORT} of {@code 127.0.0.1} and of {@link TestCertificates#UNNAMED_HOST}, with the certificates the test
 * made; database {@value #DATABASE}. Made with the Debian package's {@code initdb} and {@code pg_ctl} as the
 * {@code postgres} user in a folder of its own; the machine's shared server is never touched. {@link #close()}
 * stops it and deletes the folder, and a shutdown hook does so if the test JVM ends first. Shared with other
 * modules' tests through this module's test jar.
 */
public final class TlsPostgres extends PrivateServer {
    /** Not 25811: that is the private TLS RabbitMQ node's distribution port, and tests run both at once. */
    public static final int PORT = 25812;
    public static final String DATABASE = "once";
    public static final String ADMIN = "postgres";

    public final TestCertificates certs;
    private final Path bin;
    /** Made fresh for each server; never printed. */
    private final String adminPassword = HexFormat.of().formatHex(randomBytes(12));

    private TlsPostgres(TestCertificates certs, Path dir) {
        super(dir);
        this.certs = certs;
        this.bin = newestBin();
    }

    /** A server with certificates of its own, made in its folder (deleted with it). */
    public static TlsPostgres start() throws IOException, SQLException {
        Path dir = Files.createTempDirectory("once-tls-postgres");
        return start(TestCertificates.make(dir.resolve("certs")), dir);
    }

    /** Makes, starts and checks the server (a verified TLS connection as the admin); fails loudly otherwise. */
    public static TlsPostgres start(TestCertificates certs) throws IOException, SQLException {
        return start(certs, Files.createTempDirectory("once-tls-postgres"));
    }

    private static TlsPostgres start(TestCertificates certs, Path dir) throws IOException, SQLException {
        requireFree(PORT, "a private PostgreSQL left running?");
        TlsPostgres pg = new TlsPostgres(certs, dir);
        try {
            pg.initAndStart();
        } catch (IOException | SQLException | RuntimeException e) {
            pg.close();
            throw e;
        }
        return pg;
    }

    private void initAndStart() throws IOException, SQLException {
        Path pwfile = dir.resolve("pwfile");
        Files.writeString(pwfile, adminPassword + "\n", StandardCharsets.US_ASCII);
        runLogged(List.of("chown", "-R", "postgres:postgres", dir.toString()));
        Path data = dir.resolve("data");
        runLogged(asPostgres(bin.resolve("initdb").toString(), "-D", data.toString(), "-U", ADMIN, "--pwfile",
                pwfile.toString(), "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync", "-E", "UTF8"));
        Files.delete(pwfile);
        // Over TCP only TLS, with a password: a client that does not ask for TLS finds no pg_hba entry.
        Files.writeString(data.resolve("pg_hba.conf"), String.join("\n",
                "local all all trust",
                "hostssl all all 127.0.0.1/32 scram-sha-256",
                "hostssl all all " + TestCertificates.UNNAMED_HOST + "/32 scram-sha-256", ""));
        Files.copy(certs.serverCert, data.resolve("server.crt"), StandardCopyOption.REPLACE_EXISTING);
        Files.copy(certs.serverKey, data.resolve("server.key"), StandardCopyOption.REPLACE_EXISTING);
        runLogged(List.of("chown", "postgres:postgres", data.resolve("server.crt").toString(),
                data.resolve("server.key").toString(), data.resolve("pg_hba.conf").toString()));
        runLogged(List.of("chmod", "600", data.resolve("server.key").toString()));
        runLogged(asPostgres(bin.resolve("pg_ctl").toString(), "-D", data.toString(), "-l", dir.resolve("server.log").toString(),
                "-w", "-t", "60", "-o", "-p " + PORT + " -k " + dir + " -c listen_addresses=127.0.0.1,"
                        + TestCertificates.UNNAMED_HOST + " -c ssl=on -c fsync=off", "start"));
        try (Connection c = admin("postgres"); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + DATABASE);
        }
    }

    /**
     * The JDBC URL to {@code host} with the server's certificate checked against {@code rootCert}
     * ({@code sslmode=verify-full}: the chain and the host name).
     */
    public String url(String host, Path rootCert) {
        return "jdbc:postgresql://" + host + ":" + PORT + "/" + DATABASE + "?sslmode=verify-full&sslrootcert="
                + rootCert;
    }

    /** A verified connection as the admin to {@code database}. */
    public Connection admin(String database) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", ADMIN);
        p.setProperty("password", adminPassword);
        return DriverManager.getConnection(url("127.0.0.1", certs.ca).replace("/" + DATABASE + "?", "/" + database
                + "?"), p);
    }

    /** Runs statements as the admin in {@value #DATABASE}. */
    public void asAdmin(String... statements) throws SQLException {
        try (Connection c = admin(DATABASE); Statement st = c.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        }
    }

    /** The record table, made by its owner, and a login role with exactly the four rights on it Once needs. */
    public void recordTableUser(String user, String password) throws SQLException {
        asAdmin("CREATE ROLE " + user + " LOGIN PASSWORD '" + password + "'",
                JdbcIdempotencyStore.schemaScript(JdbcDialect.POSTGRESQL, JdbcIdempotencyStore.DEFAULT_TABLE),
                "GRANT SELECT, INSERT, UPDATE, DELETE ON once_record TO " + user);
    }

    @Override
    protected void stopServer() {
        if (Files.exists(dir.resolve("data").resolve("postmaster.pid"))) {
            runLogged(asPostgres(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(), "-m",
                    "immediate", "-w", "-t", "30", "stop"));
        }
    }

    private static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        new SecureRandom().nextBytes(b);
        return b;
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

    private static List<String> asPostgres(String... command) {
        List<String> full = new ArrayList<>(List.of("runuser", "-u", "postgres", "--"));
        full.addAll(List.of(command));
        return full;
    }

    private String runLogged(List<String> command) {
        return run(command, this::logTail);
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(dir.resolve("server.log"));
            return "\nserver.log ends:\n" + String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
        } catch (IOException e) {
            return "";
        }
    }
}
