package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;

import java.sql.Connection;
import java.sql.PreparedStatement;
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

/** Bounded purge of expired records, and two purgers running at once on one table. */
class JdbcPurgeTest {

    abstract static class Variant {
        abstract TestDb db();

        HikariDataSource pool;
        JdbcIdempotencyStore store;
        String namespace = "p" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

        @BeforeEach
        void setUp() {
            pool = db().pool("TRANSACTION_READ_COMMITTED", true);
            store = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_purge"))
                    .createTableIfMissing(true).build();
        }

        @AfterEach
        void tearDown() throws Exception {
            try (HikariDataSource p = pool) {
                TestDb.drop(pool, store.tableName());
            }
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
                ClaimResult r = store.claim(new ClaimRequest(IdempotencyKey.of(namespace, "live-" + i), null,
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
        @DisplayName("two purgers at once remove all 5,000 expired records, keep the live ones, and raise no deadlock")
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

    @Nested
    @DisplayName("PostgreSQL")
    class Postgres extends Variant {
        TestDb db() { return TestDb.POSTGRESQL; }
    }

    @Nested
    @DisplayName("MariaDB")
    class MariaDb extends Variant {
        TestDb db() { return TestDb.MARIADB; }
    }

    @Nested
    @DisplayName("H2")
    class H2 extends Variant {
        TestDb db() { return TestDb.H2; }
    }
}
