package io.github.once.jdbc;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.ResultCodec;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.testkit.FaultProxy;
import io.github.once.testkit.StoreCalls;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Configuration, dialect detection, an unreachable database, and the separate-transaction window. */
class JdbcIdempotencyStoreTest {

    @Test
    @DisplayName("a table name that is not a plain identifier is refused, naming the setting")
    void tableNameIsValidated() {
        try (HikariDataSource pool = TestDb.H2.pool("TRANSACTION_READ_COMMITTED", true)) {
            for (String bad : new String[]{"once_record; DROP TABLE x", "a-b", "1abc", "\"quoted\"", "", "x".repeat(49)}) {
                assertThatThrownBy(() -> JdbcIdempotencyStore.builder(pool).tableName(bad))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("tableName");
            }
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(pool).queryTimeout(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queryTimeout");
        }
    }

    @Test
    @DisplayName("the dialect is detected from the connection")
    void dialectIsDetected() {
        for (TestDb db : TestDb.values()) {
            try (HikariDataSource pool = db.pool("TRANSACTION_READ_COMMITTED", true)) {
                assertThat(JdbcIdempotencyStore.builder(pool).build().dialect()).isEqualTo(db.dialect);
            }
        }
    }

    @Test
    @DisplayName("an unreachable database raises StoreUnavailableException within the pool's timeout")
    void unreachableDatabaseIsUnavailable() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:1/test");
        config.setUsername("postgres");
        config.setConnectionTimeout(1_000);
        config.setInitializationFailTimeout(-1);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).dialect(JdbcDialect.POSTGRESQL).build();
            ClaimRequest request = new ClaimRequest(IdempotencyKey.of("down", "1"), null, Duration.ofSeconds(5),
                    Duration.ofHours(1));
            long started = System.nanoTime();
            assertThatThrownBy(() -> StoreCalls.claim(store, request)).isInstanceOf(StoreUnavailableException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
            JdbcIdempotencyStore undetected = JdbcIdempotencyStore.builder(pool).build();
            assertThat(undetected).hasToString("JdbcIdempotencyStore[dialect not detected yet, table once_record]");
            assertThatThrownBy(undetected::dialect).isInstanceOf(StoreUnavailableException.class);
        }
    }

    @Test
    @DisplayName("a store built while its database is down detects the dialect, creates its table and works once the database answers")
    void builtWhileTheDatabaseIsDownWorksOnceItAnswers() throws Exception {
        String table = TestDb.randomTable("once_late");
        try (FaultProxy proxy = new FaultProxy("127.0.0.1", 5432)) {
            proxy.block();
            HikariConfig config = new HikariConfig();
            config.setJdbcUrl("jdbc:postgresql://127.0.0.1:" + proxy.port() + "/test");
            config.setUsername("postgres");
            config.setConnectionTimeout(1_000);
            config.setInitializationFailTimeout(-1);
            try (HikariDataSource pool = new HikariDataSource(config)) {
                JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).tableName(table)
                        .createTableIfMissing(true).build();
                ClaimRequest request = new ClaimRequest(IdempotencyKey.of("late", "1"), null, Duration.ofSeconds(5),
                        Duration.ofHours(1));
                assertThatThrownBy(() -> StoreCalls.claim(store, request)).isInstanceOf(StoreUnavailableException.class);
                assertThatThrownBy(store::verify).isInstanceOf(StoreUnavailableException.class);

                proxy.restore();
                await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(StoreUnavailableException.class)
                        .until(() -> StoreCalls.claim(store, request) instanceof ClaimResult.Acquired);
                assertThat(store.dialect()).isEqualTo(JdbcDialect.POSTGRESQL);
                store.verify();
            }
        } finally {
            try (HikariDataSource pool = TestDb.POSTGRESQL.pool("TRANSACTION_READ_COMMITTED", true);
                 Connection c = pool.getConnection()) {
                c.createStatement().execute("DROP TABLE IF EXISTS " + table);
            }
        }
    }

    @Test
    @DisplayName("separate transaction: a crash after the effect and before the record lets the executor repeat the effect")
    void separateTransactionCrashAfterEffectRepeatsEffect() throws Exception {
        try (HikariDataSource effectsPool = TestDb.POSTGRESQL.pool("TRANSACTION_READ_COMMITTED", true)) {
            String table = TestDb.randomTable("once_sep");
            String effects = TestDb.randomTable("once_fx");
            try (Connection c = effectsPool.getConnection()) {
                TestDb.POSTGRESQL.createEffectTable(c, effects);
            }
            // The dead process's lease is short, so the redelivery need not wait long; the second's is long, so a
            // slow machine cannot take the key from it while it works.
            IdempotencyConfig config = IdempotencyConfig.builder().leaseDuration(Duration.ofMillis(300)).build();
            IdempotencyConfig secondConfig = IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(30)).build();
            IdempotencyKey key = IdempotencyKey.of("sep" + UUID.randomUUID().toString().substring(0, 8), "m-1");
            AtomicInteger handlerRuns = new AtomicInteger();
            try {
                // The first process commits its effect in a transaction of its own, then dies before the executor
                // records the completion: its store connections go away with it.
                HikariDataSource firstProcess = TestDb.POSTGRESQL.pool("TRANSACTION_READ_COMMITTED", true);
                JdbcIdempotencyStore first = JdbcIdempotencyStore.builder(firstProcess).tableName(table)
                        .createTableIfMissing(true).build();
                Object firstAnswer;
                try (Idempotency once = Idempotency.builder(first).config(config).build()) {
                    try {
                        firstAnswer = once.execute(key, new byte[]{1}, ResultCodec.utf8(), ctx -> {
                            handlerRuns.incrementAndGet();
                            insertEffect(effectsPool, effects, key);
                            firstProcess.close();
                            return "charged";
                        });
                    } catch (RuntimeException e) {
                        firstAnswer = e;
                    }
                }
                assertThat(firstAnswer).as("no completion is recorded by the dead process")
                        .isNotInstanceOf(Outcome.Processed.class);
                assertThat(handlerRuns).hasValue(1);

                // The redelivery reaches a second process once the dead one's lease has lapsed: the executor
                // claims the key and runs the handler, and the effect happens a second time.
                try (HikariDataSource secondProcess = TestDb.POSTGRESQL.pool("TRANSACTION_READ_COMMITTED", true);
                     Idempotency once = Idempotency.builder(JdbcIdempotencyStore.builder(secondProcess)
                             .tableName(table).build()).config(secondConfig).build()) {
                    AtomicReference<Outcome<String>> redelivery = new AtomicReference<>();
                    await().atMost(Duration.ofSeconds(10)).until(() -> {
                        redelivery.set(once.execute(key, new byte[]{1}, ResultCodec.utf8(), ctx -> {
                            handlerRuns.incrementAndGet();
                            insertEffect(effectsPool, effects, key);
                            return "charged";
                        }));
                        return !(redelivery.get() instanceof Outcome.Busy);
                    });
                    assertThat(redelivery.get()).isInstanceOf(Outcome.Processed.class);
                }
                assertThat(handlerRuns).hasValue(2);
                assertThat(TestDb.count(effectsPool, "SELECT count(*) FROM " + effects)).isEqualTo(2);
            } finally {
                TestDb.drop(effectsPool, table, effects);
            }
        }
    }

    @Test
    @DisplayName("the executor over the JDBC store processes once and answers duplicates")
    void executorOverJdbcStore() throws Exception {
        try (HikariDataSource pool = TestDb.MARIADB.pool("TRANSACTION_REPEATABLE_READ", true)) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_exec"))
                    .createTableIfMissing(true).build();
            try (Idempotency once = Idempotency.builder(store)
                    .config(IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(3)).build()).build()) {
                IdempotencyKey key = IdempotencyKey.of("exec" + UUID.randomUUID().toString().substring(0, 8), "Ünïcödé 🦄");
                assertThat(once.execute(key, new byte[]{1}, ResultCodec.utf8(), ctx -> "r")).isInstanceOf(Outcome.Processed.class);
                Outcome<String> again = once.execute(key, new byte[]{1}, ResultCodec.utf8(), ctx -> "other");
                assertThat(again).isInstanceOf(Outcome.Duplicate.class);
                assertThat(((Outcome.Duplicate<String>) again).result()).isEqualTo("r");
                assertThat(once.execute(key, new byte[]{2}, ResultCodec.utf8(), ctx -> "x")).isInstanceOf(Outcome.Conflict.class);
            } finally {
                TestDb.drop(pool, store.tableName());
            }
        }
    }

    private static void insertEffect(HikariDataSource pool, String effects, IdempotencyKey key) throws Exception {
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + effects + " (message_id) VALUES (?)")) {
            ps.setString(1, key.toString());
            ps.executeUpdate();
        }
    }
}
