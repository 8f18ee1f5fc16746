package io.github.once.jdbc;

import io.github.once.IdempotencyKey;
import io.github.once.StoreMisconfiguredException;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;
import io.github.once.tls.TestCertificates;
import io.github.once.tls.TlsPostgres;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The JDBC store over TLS with {@code sslmode=verify-full}, on a private PostgreSQL that accepts TCP connections
 * only over TLS, with certificates made here: the chain is checked against the root certificate in the URL and the
 * certificate must name the host; a wrong root certificate, a host it does not name, or no TLS at all fails the
 * start-up check with the driver's reason, never the password.
 */
class JdbcTlsTest {
    private static final String USER = "once_tls";
    private static final String PASSWORD = "pg-tls-s3cret-6a1f";

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

    static PGSimpleDataSource dataSource(String url, String user, String password) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(url);
        ds.setUser(user);
        ds.setPassword(password);
        ds.setConnectTimeout(5);
        return ds;
    }

    @Test
    void storeOverVerifyFullClaimsCompletesAndAnswersTheDuplicate() {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(
                dataSource(pg.url("127.0.0.1", pg.certs.ca), USER, PASSWORD)).build();
        store.verify();
        ClaimRequest request = new ClaimRequest(IdempotencyKey.of("tls", "1"), "fp", Duration.ofMinutes(1),
                Duration.ofHours(1));
        Lease lease = ((ClaimResult.Acquired) StoreCalls.claim(store, request)).lease();
        assertThat(StoreCalls.complete(store, lease, "ok".getBytes(StandardCharsets.UTF_8), Duration.ofHours(1)))
                .isTrue();
        assertThat(StoreCalls.claim(store, request)).isInstanceOf(ClaimResult.Duplicate.class);
    }

    @Test
    void aWrongRootCertificateFailsTheStartUpCheckNamingTheCertificateProblem() {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(
                dataSource(pg.url("127.0.0.1", pg.certs.otherCa), USER, PASSWORD)).build();

        assertThatThrownBy(store::verify)
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("SSL error")
                .hasMessageContaining("PKIX path building failed")
                .hasMessageNotContaining(PASSWORD);
    }

    @Test
    void aHostTheCertificateDoesNotNameFailsTheStartUpCheck() {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(
                dataSource(pg.url(TestCertificates.UNNAMED_HOST, pg.certs.ca), USER, PASSWORD)).build();

        assertThatThrownBy(store::verify)
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("The hostname " + TestCertificates.UNNAMED_HOST + " could not be verified")
                .hasMessageNotContaining(PASSWORD);
    }

    @Test
    void withoutTlsTheServerFindsNoEntryForTheClient() {
        String plain = pg.url("127.0.0.1", pg.certs.ca).replaceFirst("\\?.*", "?sslmode=disable");

        assertThatThrownBy(() -> JdbcIdempotencyStore.builder(dataSource(plain, USER, PASSWORD)).build().verify())
                .isInstanceOf(StoreMisconfiguredException.class)
                .hasMessageContaining("no pg_hba.conf entry")
                .hasMessageContaining("no encryption")
                .hasMessageContaining("uses TLS where the server requires it")
                .hasMessageNotContaining(PASSWORD);
    }
}
