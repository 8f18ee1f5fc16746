package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A completion inside the lease keeps the expiry its claim wrote (the lease plus the retention), so it rewrites no
 * indexed column; a record still lives at least the retention after its completion, and at most one lease (or,
 * for a retention shorter than the lease, one retention) more.
 */
class CompletionKeepsExpiryTest {

    private static final Duration LEASE = Duration.ofSeconds(60);

    private HikariDataSource pool;
    private JdbcIdempotencyStore store;
    private final String namespace = "exp" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);

    private void open(TestDb db) {
        pool = db.pool("TRANSACTION_READ_COMMITTED", true);
        store = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_exp"))
                .createTableIfMissing(true).build();
    }

    @AfterEach
    void tearDown() throws Exception {
        if (pool != null) {
            try (HikariDataSource p = pool) {
                TestDb.drop(p, store.tableName());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(TestDb.class)
    void aRecordLivesFromOneRetentionToOneRetentionAndOneLeaseAfterItsCompletion(TestDb db) throws Exception {
        open(db);
        Duration retention = Duration.ofHours(1);
        IdempotencyKey single = key("single");
        assertThat(StoreCalls.complete(store, acquire(single, retention), "r".getBytes(), retention)).isTrue();
        List<Completion> batch = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            batch.add(new Completion(acquire(key("batch" + i), retention), null, retention));
        }
        assertThat(store.complete(batch)).containsOnly(true);

        for (String id : List.of("single", "batch0", "batch1", "batch2")) {
            Duration kept = keptAfterCompletion(key(id));
            assertThat(kept).as("%s: expiry after completion", id)
                    .isBetween(retention, retention.plus(LEASE));
        }
    }

    @ParameterizedTest
    @EnumSource(TestDb.class)
    void aRetentionShorterThanTheLeaseCountsFromTheCompletion(TestDb db) throws Exception {
        open(db);
        Duration retention = Duration.ofSeconds(1);
        IdempotencyKey single = key("short");
        assertThat(StoreCalls.complete(store, acquire(single, retention), null, retention)).isTrue();
        IdempotencyKey batched = key("short-batch");
        IdempotencyKey other = key("short-batch-2");
        assertThat(store.complete(List.of(new Completion(acquire(batched, retention), null, retention),
                new Completion(acquire(other, retention), null, retention)))).containsOnly(true);

        for (IdempotencyKey key : List.of(single, batched, other)) {
            // Not the claim's 60 s lease: the record is forgotten a retention or two after its completion.
            assertThat(keptAfterCompletion(key)).as("%s", key).isBetween(retention, retention.multipliedBy(2));
        }
    }

    @Test
    @DisplayName("PostgreSQL: completing a claimed row, one at a time or in a batch, is a HOT update")
    void postgresCompletionsAreHotUpdates() throws Exception {
        open(TestDb.POSTGRESQL);
        Duration retention = Duration.ofHours(1);
        try (Connection c = pool.getConnection()) {
            c.setAutoCommit(false);
            List<ClaimRequest> requests = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                requests.add(new ClaimRequest(key("hot" + i), null, LEASE, retention));
            }
            List<Completion> completions = new ArrayList<>();
            for (ClaimResult claim : store.table().claims.claimDistinct(c, requests)) {
                completions.add(new Completion(((ClaimResult.Acquired) claim).lease(), null, retention));
            }
            assertThat(store.table().complete(c, completions.get(0), false)).isTrue();
            assertThat(store.table().completeAll(c, completions.subList(1, 10), false)).containsOnly(true);

            // This transaction's own counts, visible to it at once.
            try (PreparedStatement ps = c.prepareStatement("SELECT n_tup_upd, n_tup_hot_upd FROM"
                    + " pg_stat_xact_user_tables WHERE relname = ?")) {
                ps.setString(1, store.tableName());
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                    assertThat(rs.getLong(1)).as("rows updated").isEqualTo(10);
                    assertThat(rs.getLong(2)).as("of them HOT").isEqualTo(10);
                }
            }
            c.commit();
        }
    }

    private IdempotencyKey key(String id) {
        return IdempotencyKey.of(namespace, id);
    }

    private Lease acquire(IdempotencyKey key, Duration retention) {
        ClaimResult result = StoreCalls.claim(store, new ClaimRequest(key, null, LEASE, retention));
        assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
        return ((ClaimResult.Acquired) result).lease();
    }

    /** The record's expiry less its completion time, both by the database's clock. */
    private Duration keptAfterCompletion(IdempotencyKey key) throws SQLException {
        try (Connection c = pool.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT completed_at, expires_at FROM " + store.tableName()
                     + " WHERE namespace = ? AND record_key = ?")) {
            ps.setString(1, key.namespace());
            ps.setString(2, key.storageId());
            try (ResultSet rs = ps.executeQuery()) {
                assertThat(rs.next()).as("row of %s", key).isTrue();
                Timestamp completed = rs.getTimestamp(1);
                Timestamp expires = rs.getTimestamp(2);
                assertThat(completed).as("completed_at of %s", key).isNotNull();
                return Duration.between(completed.toInstant(), expires.toInstant());
            }
        }
    }
}
