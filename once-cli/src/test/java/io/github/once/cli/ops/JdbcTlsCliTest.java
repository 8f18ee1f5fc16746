package io.github.once.cli.ops;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.ResultCodec;
import io.github.once.cli.Cli;
import io.github.once.cli.ExitCodes;
import io.github.once.cli.UrlDataSource;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.tls.TestCertificates;
import io.github.once.tls.TlsPostgres;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code --jdbc-url} with {@code sslmode=verify-full} on a private hostssl-only PostgreSQL, as a role with the
 * record table's four rights only: the commands work; a wrong root certificate or a host the certificate does not
 * name is exit status 3 with the driver's reason, never the password.
 */
class JdbcTlsCliTest {
    private static final String USER = "once_cli";
    private static final String PASSWORD = "cli-pg-s3cret-0e5b";

    private static TlsPostgres pg;

    @BeforeAll
    static void startServer() throws Exception {
        pg = TlsPostgres.start();
        pg.recordTableUser(USER, PASSWORD);
    }

    @AfterAll
    static void stopServer() {
        if (pg != null) {
            pg.close();
        }
    }

    private static String url(String host, Path rootCert) {
        return pg.url(host, rootCert) + "&user=" + USER + "&password=" + PASSWORD;
    }

    @Test
    void inspectStatsAndPurgeOverVerifyFull() throws Exception {
        String url = url("127.0.0.1", pg.certs.ca);
        try (Idempotency once = Idempotency.builder(JdbcIdempotencyStore.builder(new UrlDataSource(url)).build())
                .build()) {
            once.execute(IdempotencyKey.of("orders", "tls-1"), "b".getBytes(), ResultCodec.utf8(), ctx -> "shipped");
        }

        Cli inspect = Cli.run("inspect", "orders", "tls-1", "--jdbc-url", url);
        assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
        assertThat(inspect.out()).contains("state        COMPLETED", "text: shipped");
        Cli stats = Cli.run("stats", "--jdbc-url", url);
        assertThat(stats.exitCode()).as(stats.toString()).isZero();
        Cli purge = Cli.run("purge", "--jdbc-url", url);
        assertThat(purge.exitCode()).as(purge.toString()).isZero();
        assertThat(inspect.out() + stats.out() + purge.out()).doesNotContain(PASSWORD);
    }

    @Test
    void aWrongRootCertificateIsExitStatus3WithTheDriversReason() {
        Cli run = Cli.run("stats", "--jdbc-url", url("127.0.0.1", pg.certs.otherCa));
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).contains("SSL error", "PKIX path building failed");
        assertThat(run.out() + run.err()).doesNotContain(PASSWORD);
    }

    @Test
    void aHostTheCertificateDoesNotNameIsExitStatus3() {
        Cli run = Cli.run("stats", "--jdbc-url", url(TestCertificates.UNNAMED_HOST, pg.certs.ca), "--verbose");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).contains("The hostname " + TestCertificates.UNNAMED_HOST + " could not be verified");
        assertThat(run.out() + run.err()).doesNotContain(PASSWORD);
    }
}
