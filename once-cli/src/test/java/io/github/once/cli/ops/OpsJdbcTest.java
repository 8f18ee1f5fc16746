package io.github.once.cli.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.ResultCodec;
import io.github.once.cli.Cli;
import io.github.once.cli.ExitCodes;
import io.github.once.cli.MiniJson;
import io.github.once.cli.Services;
import io.github.once.cli.UrlDataSource;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.testkit.StoreCalls;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** inspect, stats and purge against the local PostgreSQL and MariaDB, on records written by the JDBC store. */
class OpsJdbcTest {

    @ParameterizedTest
    @ValueSource(strings = {Services.POSTGRES, Services.MARIADB})
    void inspectStatsAndPurgeOnARealTable(String url) throws Exception {
        String table = "once_cli_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(new UrlDataSource(url)).tableName(table)
                .createTableIfMissing(true).build();
        try {
            try (Idempotency once = Idempotency.builder(store).build()) {
                once.execute(IdempotencyKey.of("orders", "done-1"), "b".getBytes(), ResultCodec.utf8(), ctx -> "ok 7");
            }
            assertThat(StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of("orders", "working-1"), null,
                    Duration.ofMinutes(5), Duration.ofMinutes(10)))).isInstanceOf(ClaimResult.Acquired.class);
            IdempotencyKey expiring = IdempotencyKey.of("orders", "expiring-1");
            assertThat(StoreCalls.claim(store, new ClaimRequest(expiring, null, Duration.ofMillis(50), Duration.ofMillis(100))))
                    .isInstanceOf(ClaimResult.Acquired.class);
            IdempotencyKey otherExpiring = IdempotencyKey.of("refunds", "expiring-2");
            assertThat(StoreCalls.claim(store, new ClaimRequest(otherExpiring, null, Duration.ofMillis(50),
                    Duration.ofMillis(100)))).isInstanceOf(ClaimResult.Acquired.class);
            ClaimResult failed = StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of("orders", "failed-1"), null,
                    Duration.ofMinutes(5), Duration.ofMinutes(10)));
            assertThat(store.release(((ClaimResult.Acquired) failed).lease())).isTrue();
            IdempotencyKey died = IdempotencyKey.of("orders", "died-1");
            assertThat(StoreCalls.claim(store, new ClaimRequest(died, null, Duration.ofMillis(50), Duration.ofMinutes(10))))
                    .isInstanceOf(ClaimResult.Acquired.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> StoreCalls.find(store, expiring).isEmpty()
                    && StoreCalls.find(store, otherExpiring).isEmpty());

            Cli inspect = Cli.run("inspect", "orders", "done-1", "--jdbc-url", url, "--table", table);
            assertThat(inspect.exitCode()).as(inspect.toString()).isZero();
            assertThat(inspect.out()).contains("state        COMPLETED", "result       4 bytes, text: ok 7",
                    "table " + table).doesNotContain("user=");

            Cli failedOne = Cli.run("inspect", "orders", "failed-1", "--jdbc-url", url, "--table", table);
            assertThat(failedOne.out()).contains("state        RELEASED  (its handler failed and gave the claim back: "
                    + "waiting for its retry)");
            Cli diedOne = Cli.run("inspect", "orders", "died-1", "--jdbc-url", url, "--table", table);
            assertThat(diedOne.out()).contains("state        LAPSED  (lease ran out without a release: its owner "
                    + "died or stalled)");

            Cli stats = Cli.run("stats", "--json", "--namespace", "orders", "--jdbc-url", url, "--table", table);
            assertThat(stats.exitCode()).as(stats.toString()).isZero();
            Map<String, Object> json = MiniJson.object(stats.out());
            // The released claim waits for its retry, apart from the claim whose owner died; working-1 is the oldest.
            assertThat(json).containsEntry("completed", 1L).containsEntry("inProgress", 1L)
                    .containsEntry("released", 1L).containsEntry("lapsed", 1L).containsEntry("expiredBacklog", 1L);
            @SuppressWarnings("unchecked")
            Map<String, Object> oldest = (Map<String, Object>) json.get("oldestInProgress");
            assertThat(oldest.get("key")).isEqualTo("orders/working-1");
            assertThat((Long) oldest.get("ageMillis")).isBetween(0L, 60_000L);

            Cli dry = Cli.run("purge", "--dry-run", "--jdbc-url", url, "--table", table);
            assertThat(dry.out()).contains("would delete 2 expired records");
            Cli purge = Cli.run("purge", "--json", "--namespace", "orders", "--jdbc-url", url, "--table", table);
            assertThat(MiniJson.object(purge.out())).containsEntry("dryRun", false).containsEntry("count", 1L)
                    .containsEntry("namespace", "orders");
            Cli after = Cli.run("stats", "--namespace", "orders", "--jdbc-url", url, "--table", table);
            assertThat(after.out()).contains("completed        1", "in progress      1", "expired backlog  0");
            Cli others = Cli.run("stats", "--namespace", "refunds", "--jdbc-url", url, "--table", table);
            assertThat(others.out()).contains("expired backlog  1");
            Cli rest = Cli.run("purge", "--jdbc-url", url, "--table", table);
            assertThat(rest.out()).contains("deleted 1 expired record from");
            assertThat(Cli.run("inspect", "orders", "done-1", "--jdbc-url", url, "--table", table).exitCode())
                    .isZero();
        } finally {
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                s.execute("DROP TABLE " + table);
            }
        }
    }

    @Test
    void aNamespaceIsResetOnlyWhenConfirmedAndARolledBackKeyIsExplained() throws Exception {
        String url = Services.POSTGRES;
        String table = "once_cli_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(new UrlDataSource(url)).tableName(table)
                .createTableIfMissing(true).build();
        try {
            try (Idempotency once = Idempotency.builder(store).build()) {
                once.execute(IdempotencyKey.of("orders", "done-1"), "b".getBytes(), ResultCodec.utf8(), ctx -> "ok");
                once.execute(IdempotencyKey.of("refunds", "r-1"), "b".getBytes(), ResultCodec.utf8(), ctx -> "ok");
            }
            assertThat(StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of("orders", "working-1"), null,
                    Duration.ofMinutes(5), Duration.ofMinutes(10)))).isInstanceOf(ClaimResult.Acquired.class);
            try (Idempotency tx = Idempotency.builder(store).transactional().build()) {
                tx.execute(IdempotencyKey.of("orders", "rolled-back-1"), "b".getBytes(), ResultCodec.utf8(), ctx -> {
                    throw new IllegalStateException("the handler fails, its transaction rolls back with the claim");
                });
            }

            Cli rolledBack = Cli.run("inspect", "orders", "rolled-back-1", "--jdbc-url", url, "--table", table);
            assertThat(rolledBack.exitCode()).isEqualTo(ExitCodes.ONCE_FAILED);
            assertThat(rolledBack.out()).contains("no record for orders/rolled-back-1",
                    "claimed only in transactions that rolled back");

            Cli unconfirmed = Cli.run("purge", "--namespace", "orders", "--all-records", "--jdbc-url", url,
                    "--table", table);
            assertThat(unconfirmed.exitCode()).as(unconfirmed.toString()).isEqualTo(ExitCodes.USAGE);
            assertThat(unconfirmed.err()).contains("add --yes");
            Cli dry = Cli.run("purge", "--namespace", "orders", "--all-records", "--dry-run", "--jdbc-url", url,
                    "--table", table);
            assertThat(dry.out()).contains("would delete 2 records of namespace orders, all of them (a reset)");
            assertThat(Cli.run("inspect", "orders", "done-1", "--jdbc-url", url, "--table", table).exitCode())
                    .isZero();

            Cli reset = Cli.run("purge", "--namespace", "orders", "--all-records", "--yes", "--jdbc-url", url,
                    "--table", table);
            assertThat(reset.exitCode()).as(reset.toString()).isZero();
            assertThat(reset.out()).contains("deleted 2 records of namespace orders, all of them (a reset)");
            assertThat(Cli.run("inspect", "orders", "done-1", "--jdbc-url", url, "--table", table).exitCode())
                    .isEqualTo(ExitCodes.ONCE_FAILED);
            assertThat(Cli.run("inspect", "orders", "working-1", "--jdbc-url", url, "--table", table).exitCode())
                    .isEqualTo(ExitCodes.ONCE_FAILED);
            assertThat(Cli.run("inspect", "refunds", "r-1", "--jdbc-url", url, "--table", table).exitCode())
                    .as("another namespace stays").isZero();
            Cli one = Cli.run("purge", "--jdbc-url", url, "--table", table);
            assertThat(one.out()).contains("deleted 0 expired records from");
        } finally {
            try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
                s.execute("DROP TABLE " + table);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {Services.POSTGRES, Services.MARIADB})
    void missingTableHasItsOwnExitStatus(String url) {
        Cli run = Cli.run("stats", "--jdbc-url", url, "--table", "no_such_once_table");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.MISSING_SCHEMA);
        assertThat(run.err()).startsWith("once: no Once records table 'no_such_once_table'")
                .contains("V1__once_record.sql").doesNotContain("\tat ");
    }

    @Test
    void unreachableDatabase() {
        int port = Services.deadPort();
        Cli run = Cli.run("purge", "--dry-run", "--jdbc-url", "jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).startsWith("once: cannot reach jdbc:postgresql://127.0.0.1:" + port + "/test");
    }

    @Test
    void badJdbcArguments() {
        Cli driver = Cli.run("stats", "--jdbc-url", "jdbc:oracle:thin:@127.0.0.1:1521/x");
        assertThat(driver.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(driver.err()).contains("no JDBC driver for jdbc:oracle:thin");
        Cli notJdbc = Cli.run("stats", "--jdbc-url", "postgresql://127.0.0.1/test");
        assertThat(notJdbc.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(notJdbc.err()).contains("--jdbc-url must start with jdbc:");
        Cli table = Cli.run("stats", "--jdbc-url", Services.POSTGRES, "--table", "x; DROP TABLE y");
        assertThat(table.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(table.err()).contains("--table must be a plain SQL identifier");
        Cli max = Cli.run("purge", "--jdbc-url", Services.POSTGRES, "--max", "0");
        assertThat(max.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(max.err()).contains("--max must be at least 1, but was 0");
    }
}
