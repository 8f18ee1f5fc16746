package io.github.once.redis;

import io.github.once.IdempotencyKey;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;
import io.lettuce.core.SslOptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code rediss://} to a private TLS-only Redis whose certificate (made here with openssl) is trusted explicitly. */
class RedisTlsTest {

    @TempDir
    static Path certs;
    private static RedisServer server;
    private static Path cert;

    @BeforeAll
    static void startServer() throws IOException {
        cert = certs.resolve("cert.pem");
        Path key = certs.resolve("key.pem");
        RedisServer.run(List.of("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", key.toString(), "-out", cert.toString()));
        assertThat(Files.size(cert)).isPositive();
        server = RedisServer.startTls(cert, key);
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void claimsOverTlsWithTheServerVerified() {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder()
                .uri("rediss://127.0.0.1:" + server.port())
                .sslOptions(SslOptions.builder().jdkSslProvider().trustManager(cert.toFile()).build())
                .clientResources(SharedRedis.RESOURCES).build()) {
            ClaimRequest request = new ClaimRequest(IdempotencyKey.of("tls", "1"), "fp", Duration.ofMinutes(1),
                    Duration.ofHours(1));
            Lease lease = ((ClaimResult.Acquired) StoreCalls.claim(store, request)).lease();
            assertThat(StoreCalls.complete(store, lease, "ok".getBytes(StandardCharsets.UTF_8), Duration.ofHours(1))).isTrue();
            assertThat(StoreCalls.claim(store, request)).isInstanceOf(ClaimResult.Duplicate.class);
        }
    }

    @Test
    void untrustedCertificateFailsTheStartUpCheck() {
        assertThatThrownBy(() -> RedisAclTest.verified(RedisIdempotencyStore.builder()
                .uri("rediss://127.0.0.1:" + server.port())
                .clientResources(SharedRedis.RESOURCES).timeout(Duration.ofSeconds(1))))
                .isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void plainTextToTheTlsPortFailsTheStartUpCheck() {
        assertThatThrownBy(() -> RedisAclTest.verified(RedisIdempotencyStore.builder()
                .uri("redis://127.0.0.1:" + server.port())
                .clientResources(SharedRedis.RESOURCES).timeout(Duration.ofSeconds(1))))
                .isInstanceOf(StoreUnavailableException.class);
    }
}
