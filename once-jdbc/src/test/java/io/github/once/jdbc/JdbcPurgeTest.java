package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.testkit.StoreCalls;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Bounded purge of expired records, and two purgers running at once on one table. */
class JdbcPurgeTest {

    abstract static class Variant {
        abstract TestDb db();

        HikariDataSource pool;
        JdbcIdempotencyStore store;
        String namespace = "p" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

        @BeforeEach
        void setUp() throws Exception {
            pool = openPool();
            store = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_purge"))
                    .createTableIfMissing(true).build();
        }

        @AfterEach
        void tearDown() throws Exception {
            try (HikariDataSource p = pool) {
                TestDb.drop(pool, store.tableName());
            }
            afterPoolClosed();
        }

        void afterPoolClosed() throws Exception {
        }

        /** The pool the test works on. */
        HikariDataSource openPool() throws Exception {
            return db().pool("TRANSACTION_READ_COMMITTED", true);
        }

        /** Inserts {@code n} records that expired a minute ago, through plain JDBC, in batches. */
        void insertExpired(int n) throws Exception {
            String now = switch (db()) {
                case POSTGRESQL -> "clock_timestamp()";
                case MARIADB -> "UTC_TIMESTAMP(6)";
                case H2 -> "CURRENT_TIMESTAMP";
            };
            String past = switch (db()) {
                case POSTGRESQL -> now + " - INTERVAL '1 minute'";
                case MARIADB -> now + " - INTERVAL 1 MINUTE";
                case H2 -> "DATEADD(MINUTE, -1, " + now + ")";
            };
            String insert = "INSERT INTO " + store.tableName() + " (namespace, record_key, state, token, lease_until,"
                    + " expires_at, created_at) VALUES (?, ?, 'COMPLETED', 1, " + past + ", " + past + ", " + past + ")";
            try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(insert)) {
                c.setAutoCommit(false);
                for (int i = 0; i < n; i++) {
                    store.table().sql.bindText(ps, 1, namespace);
                    store.table().sql.bindText(ps, 2, "expired-" + i);
                    ps.addBatch();
                    if (i % 500 == 499) {
                        ps.executeBatch();
                    }
                }
                ps.executeBatch();
                c.commit();
                c.setAutoCommit(true);
            }
        }

        void claimLive(int n) {
            for (int i = 0; i < n; i++) {
                ClaimResult r = StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of(namespace, "live-" + i), null,
                        Duration.ofMinutes(5), Duration.ofHours(1)));
                assertThat(r).isInstanceOf(ClaimResult.Acquired.class);
            }
        }

        long rows(String prefix) throws Exception {
            return TestDb.count(pool, "SELECT count(*) FROM " + store.tableName() + " WHERE record_key LIKE '" + prefix + "%'");
        }

        @Test
        @DisplayName("purgeExpired deletes at most the bound, expired records only")
        void purgeIsBounded() throws Exception {
            insertExpired(1_500);
            claimLive(10);

            assertThat(store.purgeExpired(1_000)).isEqualTo(1_000);
            assertThat(rows("expired-")).isEqualTo(500);
            assertThat(store.purgeExpired(1_000)).isEqualTo(500);
            assertThat(store.purgeExpired(1_000)).isZero();
            assertThat(rows("live-")).isEqualTo(10);
            assertThatThrownBy(() -> store.purgeExpired(0)).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        @DisplayName("two purgers at once remove all 5,000 expired records, keep the live ones, and deadlock never")
        void twoPurgersAtOnce() throws Exception {
            insertExpired(5_000);
            claimLive(50);
            JdbcPurger a = JdbcPurger.builder(store).batchSize(500).build();
            JdbcPurger b = JdbcPurger.builder(store).batchSize(500).build();

            CompletableFuture<Integer> first = CompletableFuture.supplyAsync(a::runOnce);
            CompletableFuture<Integer> second = CompletableFuture.supplyAsync(b::runOnce);
            int purged = first.get(60, TimeUnit.SECONDS) + second.get(60, TimeUnit.SECONDS);

            // A batch that lost a race deletes nothing and ends its run early; a further run finishes the backlog.
            purged += a.runOnce();
            assertThat(store.purgeDeadlocks()).as("purge batches aborted as deadlock victims").isZero();
            assertThat(purged).isEqualTo(5_000);
            assertThat(rows("expired-")).isZero();
            assertThat(rows("live-")).isEqualTo(50);
        }

        @Test
        @DisplayName("a started purger cleans up on its schedule")
        void scheduledPurger() throws Exception {
            insertExpired(100);
            try (JdbcPurger purger = JdbcPurger.builder(store).interval(Duration.ofMillis(50)).build().start()) {
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> rows("expired-") == 0);
            }
            assertThatThrownBy(() -> JdbcPurger.builder(store).batchSize(0))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("batchSize");
        }
    }

    /** A database server both processes reach, with the server's own count of deadlocks it broke. */
    abstract static class ServerVariant extends Variant {

        /** The URL the second process connects to. */
        abstract String url();

        /** Deadlocks the server broke that involve this test's table, by the server's own counter. */
        abstract long serverDeadlocks() throws Exception;

        @Test
        @DisplayName("purgers in two processes remove 20,000 expired records between them, and the server breaks no deadlock")
        void purgersInTwoProcesses() throws Exception {
            insertExpired(20_000);
            claimLive(50);
            long deadlocksBefore = serverDeadlocks();
            Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), PurgerProcess.class.getName(), url(), db().user,
                    store.tableName(), "200").redirectError(ProcessBuilder.Redirect.INHERIT).start();
            try {
                BufferedReader out = new BufferedReader(new InputStreamReader(other.getInputStream(),
                        StandardCharsets.UTF_8));
                assertThat(out.readLine()).isEqualTo("ready");
                JdbcPurger here = JdbcPurger.builder(store).batchSize(200).build();
                other.getOutputStream().write('\n');
                other.getOutputStream().flush();
                int purgedHere = 0;
                for (int deleted = here.runOnce(); deleted > 0; deleted = here.runOnce()) {
                    purgedHere += deleted;
                }
                String report = out.readLine();
                assertThat(other.waitFor(60, TimeUnit.SECONDS)).as("second purger finished").isTrue();
                assertThat(other.exitValue()).isZero();
                assertThat(report).as("second purger's report").matches("purged \\d+ deadlocks \\d+");
                String[] words = report.split(" ");
                int purgedThere = Integer.parseInt(words[1]);
                // Both processes took part: the runs overlapped.
                assertThat(purgedHere).as("purged here").isPositive();
                assertThat(purgedThere).as("purged by the other process").isPositive();
                assertThat(store.purgeDeadlocks() + Long.parseLong(words[3])).as("purge batches aborted as deadlock"
                        + " victims").isZero();
                int leftOver = here.runOnce();
                assertThat(purgedHere + purgedThere + leftOver).isEqualTo(20_000);
                assertThat(rows("expired-")).isZero();
                assertThat(rows("live-")).isEqualTo(50);
                assertThat(serverDeadlocks() - deadlocksBefore).as("deadlocks the server broke").isZero();
            } finally {
                other.destroyForcibly();
            }
        }
    }

    @Nested
    @DisplayName("PostgreSQL")
    class Postgres extends ServerVariant {
        /** A database of this test's own, so the server's per-database deadlock counter counts only this test. */
        final String database = TestDb.randomTable("once_purge_db");

        TestDb db() { return TestDb.POSTGRESQL; }

        String url() { return "jdbc:postgresql://127.0.0.1:5432/" + database; }

        @Override
        HikariDataSource openPool() throws Exception {
            admin("CREATE DATABASE " + database);
            return TestDb.pool(url(), db().user, "once-test-purge-db");
        }

        @Override
        void afterPoolClosed() throws Exception {
            admin("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }

        @Override
        long serverDeadlocks() throws Exception {
            // Statistics reach pg_stat_database when a backend is idle (at most once a second) or exits: close
            // every connection to the database and wait until their backends are gone.
            pool.getHikariPoolMXBean().softEvictConnections();
            await().atMost(Duration.ofSeconds(30)).until(() -> adminCount("SELECT count(*) FROM pg_stat_activity"
                    + " WHERE datname = '" + database + "' AND pid <> pg_backend_pid()") == 0);
            return adminCount("SELECT deadlocks FROM pg_stat_database WHERE datname = '" + database + "'");
        }

        private void admin(String statement) throws Exception {
            try (Connection c = DriverManager.getConnection(TestDb.POSTGRESQL.url, "postgres", "");
                 Statement st = c.createStatement()) {
                st.execute(statement);
            }
        }

        private long adminCount(String query) throws Exception {
            try (Connection c = DriverManager.getConnection(TestDb.POSTGRESQL.url, "postgres", "");
                 Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    @Nested
    @DisplayName("MariaDB")
    class MariaDb extends ServerVariant {
        TestDb db() { return TestDb.MARIADB; }

        String url() { return TestDb.MARIADB.url; }

        /**
         * InnoDB counts deadlocks for the whole server ({@code Innodb_deadlocks}), which other work on it shares;
         * its status names the tables of the latest deadlock it broke: 1 when that one touched this test's table.
         */
        @Override
        long serverDeadlocks() throws Exception {
            try (Connection c = pool.getConnection(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SHOW ENGINE INNODB STATUS")) {
                rs.next();
                String status = rs.getString("Status");
                int latest = status.indexOf("LATEST DETECTED DEADLOCK");
                return latest >= 0 && status.indexOf(store.tableName(), latest) >= 0 ? 1 : 0;
            }
        }
    }

    @Nested
    @DisplayName("H2")
    class H2 extends Variant {
        TestDb db() { return TestDb.H2; }
    }
}
