package io.github.once.examples.orderflow;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.github.once.IdempotencyKey;
import io.github.once.RecordState;
import io.github.once.testkit.StoreCalls;
import io.github.once.tiered.TieredIdempotencyStore;
import io.github.once.jdbc.JdbcDialect;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.testkit.IdempotencyStoreContract;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The tiered store with the real Redis store in front of the real PostgreSQL store passes the whole contract. */
class TieredRedisOverPostgresContractTest extends IdempotencyStoreContract {

    private static final String TABLE = "once_tiered_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private static HikariDataSource pool;

    @BeforeAll
    static void openPool() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test");
        config.setUsername("postgres");
        config.setMaximumPoolSize(24);
        config.setConnectionTimeout(5_000);
        pool = new HikariDataSource(config);
    }

    @AfterAll
    static void dropTable() throws Exception {
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + TABLE);
        }
        pool.close();
    }

    @Override
    protected IdempotencyStore createStore() {
        JdbcIdempotencyStore records = JdbcIdempotencyStore.builder(pool).tableName(TABLE)
                .createTableIfMissing(true).build();
        RedisIdempotencyStore front = RedisIdempotencyStore.builder().uri("redis://127.0.0.1:6379")
                .keyPrefix("once:tiered-test:").timeout(Duration.ofSeconds(2)).build();
        return TieredIdempotencyStore.builder(front, records).build();
    }

    /**
     * The same tiers with the store of record on a port where nothing listens: a new key's claim fails with
     * StoreUnavailableException (the front answers only duplicates).
     */
    @Override
    protected IdempotencyStore createFailingStore() {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = socket.getLocalPort(); // closed again here, so nothing listens there
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        PGSimpleDataSource down = new PGSimpleDataSource();
        down.setUrl("jdbc:postgresql://127.0.0.1:" + port + "/test");
        down.setUser("postgres");
        JdbcIdempotencyStore records = JdbcIdempotencyStore.builder(down).dialect(JdbcDialect.POSTGRESQL)
                .tableName(TABLE).build();
        RedisIdempotencyStore front = RedisIdempotencyStore.builder().uri("redis://127.0.0.1:6379")
                .keyPrefix("once:tiered-test:").timeout(Duration.ofSeconds(2)).build();
        return TieredIdempotencyStore.builder(front, records).build();
    }

    @Override
    protected int fuzzRounds() {
        return 1; // every round is 16,000 claims on PostgreSQL; the other contract tests cover the rest
    }

    @Test
    @DisplayName("a batch's copies land in the real Redis off the caller's thread, and Redis then answers its duplicates alone")
    void copiesLandInRedisAndAnswerDuplicates() {
        TieredIdempotencyStore tiered = (TieredIdempotencyStore) store;
        List<IdempotencyKey> keys = List.of(key("copied-1"), key("copied-2"), key("copied-3"));
        List<Completion> completions = new ArrayList<>();
        for (IdempotencyKey k : keys) {
            completions.add(new Completion(acquire(k), k.id().getBytes(StandardCharsets.UTF_8), Duration.ofHours(1)));
        }

        assertThat(tiered.complete(completions)).containsExactly(true, true, true);

        for (IdempotencyKey k : keys) {
            await().atMost(Duration.ofSeconds(10)).until(() -> StoreCalls.find(tiered.front(), k)
                    .map(copy -> copy.state() == RecordState.COMPLETED).orElse(false));
        }
        List<ClaimResult> again = tiered.claim(keys.stream().map(k -> request(k, "fp-1", Duration.ofMinutes(1)))
                .toList());
        assertThat(again).allMatch(answer -> answer instanceof ClaimResult.Duplicate);
        assertThat(((ClaimResult.Duplicate) again.get(2)).record().result())
                .isEqualTo("copied-3".getBytes(StandardCharsets.UTF_8));
        assertThat(tiered.frontHits()).as("answered by Redis").isEqualTo(3);
        assertThat(tiered.frontFailures()).isZero();
    }
}
