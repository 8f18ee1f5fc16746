package io.github.once.cli.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.once.cli.Cli;
import io.github.once.cli.ExitCodes;
import io.github.once.cli.JvmTrustStore;
import io.github.once.tls.TestCertificates;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code --redis-uri rediss://...} on a private TLS-only redis-server with the test's certificates: the CLI checks
 * the server's certificate against the JVM's trust store (given as {@code -Djavax.net.ssl.trustStore} in
 * JAVA_OPTS would give it; here the same system properties) and the host name; a refused certificate is exit
 * status 3, never with the password.
 */
class RedisTlsCliTest {
    private static final String SECRET = "rediss-s3cret-8c4d";

    private static Path dir;
    private static TestCertificates certs;
    private static Process server;
    private static int port;
    private final JvmTrustStore trust = new JvmTrustStore();

    @BeforeAll
    static void startServer() throws Exception {
        dir = Files.createTempDirectory("once-cli-redis-tls");
        certs = TestCertificates.make(dir.resolve("certs"));
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        server = new ProcessBuilder(List.of("redis-server", "--port", "0", "--tls-port", Integer.toString(port),
                "--bind", "127.0.0.1 " + TestCertificates.UNNAMED_HOST, "--tls-cert-file", certs.serverCert.toString(),
                "--tls-key-file", certs.serverKey.toString(), "--tls-ca-cert-file", certs.ca.toString(),
                "--tls-auth-clients", "no", "--save", "", "--appendonly", "no", "--dir", dir.toString()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        await("the private TLS redis-server on port " + port).atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100))
                .failFast("redis-server exited; see " + dir.resolve("redis.log"), () -> !server.isAlive())
                .ignoreExceptions()
                .until(() -> {
                    try (Socket s = new Socket("127.0.0.1", port)) {
                        return true;
                    }
                });
    }

    @AfterAll
    static void stopServer() throws Exception {
        try {
            if (server != null) {
                server.destroy();
                if (!server.waitFor(10, TimeUnit.SECONDS)) {
                    server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
        } finally {
            new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor();
        }
    }

    @AfterEach
    void restoreTrustStore() {
        trust.restore();
    }

    private void trustStore(Path caPem) throws IOException {
        trust.use(certs.trustStoreFile(caPem));
    }

    @Test
    void statsOverRedissWithTheTrustStoreFromTheJvmProperties() throws Exception {
        trustStore(certs.ca);

        Cli run = Cli.run("stats", "--redis-uri", "rediss://127.0.0.1:" + port);
        assertThat(run.exitCode()).as(run.toString()).isZero();
    }

    @Test
    void anUntrustedCertificateIsExitStatus3WithoutThePassword() throws Exception {
        trustStore(certs.otherCa);

        Cli run = Cli.run("stats", "--redis-uri", "rediss://:" + SECRET + "@127.0.0.1:" + port);
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).contains("cannot reach Redis at 127.0.0.1:" + port
                + " (unable to find valid certification path to requested target)");
        assertThat(run.out() + run.err()).doesNotContain(SECRET);
    }

    @Test
    void aHostTheCertificateDoesNotNameIsExitStatus3() throws Exception {
        trustStore(certs.ca);

        Cli run = Cli.run("stats", "--redis-uri", "rediss://:" + SECRET + "@" + TestCertificates.UNNAMED_HOST + ":"
                + port);
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).contains("(No subject alternative names matching IP address "
                + TestCertificates.UNNAMED_HOST + " found)");
        assertThat(run.out() + run.err()).doesNotContain(SECRET);
    }
}
