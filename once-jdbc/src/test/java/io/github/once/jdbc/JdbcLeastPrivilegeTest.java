package io.github.once.jdbc;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.ResultCodec;
import io.github.once.StoreMisconfiguredException;
import io.github.once.spi.ClaimRequest;
import io.github.once.testkit.StoreCalls;
import io.github.once.tls.TlsPostgres;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The least PostgreSQL rights the JDBC store needs: SELECT, INSERT, UPDATE and DELETE on the record table, made
 * beforehand by its owner (the role may not create tables), over {@code sslmode=verify-full} on a private server.
 * A role with exactly these runs both modes and the purge; without one, the store fails with the database's
 * refusal and the grant to give.
 */
class JdbcLeastPrivilegeTest {
    private static final String PASSWORD = "least-pg-s3cret-c3d9";
    private static final String GRANT = "grant it SELECT, INSERT, UPDATE and DELETE on the record table";

    private static TlsPostgres pg;

    @BeforeAll
    static void startServer() throws Exception {
        pg = TlsPostgres.start();
        pg.asAdmin(JdbcIdempotencyStore.schemaScript(JdbcDialect.POSTGRESQL, JdbcIdempotencyStore.DEFAULT_TABLE));
        role("once_app", "SELECT, INSERT, UPDATE, DELETE");
        role("once_no_update", "SELECT, INSERT, DELETE");
        role("once_no_delete", "SELECT, INSERT, UPDATE");
        role("once_nothing", null);
    }

    private static void role(String name, String rights) throws SQLException {
        pg.asAdmin("CREATE ROLE " + name + " LOGIN PASSWORD '" + PASSWORD + "'");
        if (rights != null) {
            pg.asAdmin("GRANT " + rights + " ON once_record TO " + name);
        }
    }

    @AfterAll
    static void stopServer() {
        if (pg != null) {
            pg.close();
        }
    }

    private static JdbcIdempotencyStore storeAs(String role) {
        return JdbcIdempotencyStore.builder(JdbcTlsTest.dataSource(pg.url("127.0.0.1", pg.certs.ca), role, PASSWORD))
                .build();
    }

    private static ClaimRequest request(String id) {
        return new ClaimRequest(IdempotencyKey.of("least", id), "fp", Duration.ofMinutes(1), Duration.ofHours(1));
    }

    @Test
    void aRoleWithTheFourRightsOnTheRecordTableRunsBothModesAndThePurge() throws Exception {
        JdbcIdempotencyStore store = storeAs("once_app");
        store.verify();
        byte[] body = "b".getBytes(StandardCharsets.UTF_8);
        try (Idempotency once = Idempotency.builder(store).build()) {
            assertThat(once.execute(IdempotencyKey.of("least", "separate"), body, ResultCodec.utf8(), ctx -> "a"))
                    .isInstanceOf(Outcome.Processed.class);
            assertThat(once.execute(IdempotencyKey.of("least", "separate"), body, ResultCodec.utf8(), ctx -> "b"))
                    .isInstanceOf(Outcome.Duplicate.class);
        }
        try (Idempotency once = Idempotency.builder(store).transactional().build()) {
            assertThat(once.execute(IdempotencyKey.of("least", "transactional"), body, ResultCodec.utf8(),
                    ctx -> "c")).isInstanceOf(Outcome.Processed.class);
        }
        StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of("least", "expired"), "fp", Duration.ofMillis(1),
                Duration.ofMillis(1)));
        assertThat(store.purgeExpired(100)).isGreaterThanOrEqualTo(0);

        // Least indeed: the role may not make tables (PostgreSQL 15 and later give PUBLIC no CREATE on public).
        try (Connection c = JdbcTlsTest.dataSource(pg.url("127.0.0.1", pg.certs.ca), "once_app", PASSWORD)
                .getConnection(); Statement st = c.createStatement()) {
            assertThatThrownBy(() -> st.execute("CREATE TABLE once_app_table (x INT)"))
                    .hasMessageContaining("permission denied for schema public");
        }
    }

    @Test
    void withoutAnyRightTheStartUpCheckFailsNamingTheGrant() {
        assertThatThrownBy(storeAs("once_nothing")::verify)
                .isInstanceOf(StoreMisconfiguredException.class)
                .hasMessageContaining("permission denied for table once_record")
                .hasMessageContaining("grant the database user SELECT, INSERT, UPDATE and DELETE on it")
                .hasMessageNotContaining(PASSWORD);
    }

    @Test
    void withoutUpdateTheClaimFailsNamingTheGrant() {
        JdbcIdempotencyStore store = storeAs("once_no_update");
        store.verify(); // SELECT is there

        assertThatThrownBy(() -> StoreCalls.claim(store, request("no-update")))
                .isInstanceOf(StoreMisconfiguredException.class)
                .hasMessageContaining("permission denied for table once_record")
                .hasMessageContaining(GRANT)
                .hasMessageNotContaining(PASSWORD);
    }

    @Test
    void withoutDeleteThePurgeFailsNamingTheGrant() {
        JdbcIdempotencyStore store = storeAs("once_no_delete");
        store.verify();

        assertThatThrownBy(() -> store.purgeExpired(100))
                .isInstanceOf(StoreMisconfiguredException.class)
                .hasMessageContaining("permission denied for table once_record")
                .hasMessageContaining(GRANT)
                .hasMessageNotContaining(PASSWORD);
    }
}
