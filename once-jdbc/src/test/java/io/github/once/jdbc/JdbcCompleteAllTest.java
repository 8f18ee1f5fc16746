package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.RecordState;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Batch completion on each database: one statement for a batch, and the answers of single completions in order. */
class JdbcCompleteAllTest {

    private static final Duration LONG = Duration.ofSeconds(60);
    private static final Duration RETENTION = Duration.ofHours(1);

    abstract static class Variant {
        abstract TestDb db();

        HikariDataSource pool;
        JdbcIdempotencyStore store;
        /** The same store over a data source that counts the statements it prepares. */
        JdbcIdempotencyStore counted;
        final AtomicInteger statements = new AtomicInteger();
        String namespace;

        @BeforeEach
        void setUp() {
            pool = db().pool("TRANSACTION_READ_COMMITTED", true);
            store = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_done"))
                    .createTableIfMissing(true).build();
            counted = JdbcIdempotencyStore.builder(CountingDataSource.counting(pool, Map.of("prepareStatement", statements)))
                    .tableName(store.tableName()).build();
            namespace = "ca" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        }

        @AfterEach
        void tearDown() throws Exception {
            try (HikariDataSource p = pool) {
                TestDb.drop(pool, store.tableName());
            }
        }

        @Test
        @DisplayName("a batch of 100 completions is one statement, and every record reads back completed with its result")
        void oneStatementPerBatch() {
            List<Lease> leases = acquireAll(100, LONG);
            List<Completion> batch = new ArrayList<>();
            for (Lease lease : leases) {
                batch.add(new Completion(lease, bytes("r-" + lease.key().id()), RETENTION));
            }
            statements.set(0);

            List<Boolean> done = counted.complete(batch);

            assertThat(statements.get()).isEqualTo(1);
            assertThat(done).hasSize(100).containsOnly(true);
            for (Lease lease : leases) {
                IdempotencyRecord record = StoreCalls.find(store, lease.key()).orElseThrow();
                assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
                assertThat(record.result()).isEqualTo(bytes("r-" + lease.key().id()));
            }
        }

        @Test
        @DisplayName("a mixed batch of 600 (over one statement's 500 rows) answers as single completions in order")
        void mixedBatchMatchesSingleCompletions() {
            List<Lease> leases = acquireAll(600, LONG);
            Lease lapsed = acquireAll(1, Duration.ofMillis(200)).get(0);
            await().atMost(Duration.ofSeconds(5)).until(() -> Instant.now().isAfter(lapsed.deadline().plusMillis(50)));
            List<Completion> batch = new ArrayList<>();
            List<Boolean> expected = new ArrayList<>();
            List<String> expectedResult = new ArrayList<>();
            for (int i = 0; i < leases.size(); i++) {
                Lease lease = leases.get(i);
                if (i % 13 == 0) {
                    // Completed earlier: a second completion is refused and the first result stays.
                    assertThat(StoreCalls.complete(store, lease, bytes("earlier"), RETENTION)).isTrue();
                    batch.add(new Completion(lease, bytes("late"), RETENTION));
                    expected.add(false);
                    expectedResult.add("earlier");
                } else if (i % 7 == 0) {
                    // A forged token first (refused), then the real lease (recorded).
                    batch.add(new Completion(new Lease(lease.key(), lease.token() + 1, lease.deadline()), bytes("forged"), RETENTION));
                    batch.add(new Completion(lease, bytes("real"), RETENTION));
                    expected.add(false);
                    expected.add(true);
                    expectedResult.add("real");
                } else if (i % 11 == 0) {
                    // The same lease twice: the first is recorded, the second finds it completed.
                    batch.add(new Completion(lease, bytes("first"), RETENTION));
                    batch.add(new Completion(lease, bytes("second"), RETENTION));
                    expected.add(true);
                    expected.add(false);
                    expectedResult.add("first");
                } else if (i % 17 == 1) {
                    // No result at all (a handler returning null with a codec that keeps null).
                    batch.add(new Completion(lease, null, RETENTION));
                    expected.add(true);
                    expectedResult.add(null);
                } else {
                    batch.add(new Completion(lease, bytes("r" + i), RETENTION));
                    expected.add(true);
                    expectedResult.add("r" + i);
                }
            }
            batch.add(new Completion(lapsed, bytes("too late"), RETENTION));
            expected.add(false);

            List<Boolean> done = store.complete(batch);

            assertThat(done).containsExactlyElementsOf(expected);
            for (int i = 0; i < leases.size(); i++) {
                IdempotencyRecord record = StoreCalls.find(store, leases.get(i).key()).orElseThrow();
                assertThat(record.state()).as("state of %s", i).isEqualTo(RecordState.COMPLETED);
                String result = record.result() == null ? null : new String(record.result(), StandardCharsets.UTF_8);
                assertThat(result).as("result of %s", i).isEqualTo(expectedResult.get(i));
            }
            assertThat(StoreCalls.find(store, lapsed.key()).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        }

        List<Lease> acquireAll(int n, Duration lease) {
            List<ClaimRequest> requests = new ArrayList<>();
            String prefix = UUID.randomUUID().toString().substring(0, 8);
            for (int i = 0; i < n; i++) {
                requests.add(new ClaimRequest(IdempotencyKey.of(namespace, prefix + "-" + i), null, lease, RETENTION));
            }
            List<Lease> leases = new ArrayList<>();
            for (ClaimResult result : store.claim(requests)) {
                assertThat(result).isInstanceOf(ClaimResult.Acquired.class);
                leases.add(((ClaimResult.Acquired) result).lease());
            }
            return leases;
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
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
