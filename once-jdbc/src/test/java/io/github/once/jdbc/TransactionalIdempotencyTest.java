package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceException;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.RecordState;
import io.github.once.ResultCodec;
import io.github.once.Task;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.testkit.StoreCalls;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Transactional mode on each database under READ COMMITTED and REPEATABLE READ: the handler's effect (a row in a
 * business table) and the completed record commit together or not at all. H2 runs under its default READ
 * COMMITTED only: under REPEATABLE READ its MERGE spins on a key another transaction has inserted but not committed.
 */
class TransactionalIdempotencyTest {

    private static final Map<String, Fixture> FIXTURES = new ConcurrentHashMap<>();

    record Fixture(HikariDataSource pool, JdbcIdempotencyStore store, String effects) {
    }

    @AfterAll
    static void dropTables() throws Exception {
        for (Fixture f : FIXTURES.values()) {
            try (HikariDataSource pool = f.pool()) {
                TestDb.drop(pool, f.store().tableName(), f.effects());
            }
        }
        FIXTURES.clear();
    }

    abstract static class Variant {
        abstract TestDb db();

        abstract String isolation();

        HikariDataSource pool;
        JdbcIdempotencyStore store;
        String effects;
        String namespace;
        Idempotency once;
        final AtomicInteger reported = new AtomicInteger();

        @BeforeEach
        void setUp() {
            Fixture f = FIXTURES.computeIfAbsent(db() + "/" + isolation(), k -> {
                HikariDataSource p = db().pool(isolation(), true);
                JdbcIdempotencyStore s = JdbcIdempotencyStore.builder(p).tableName(TestDb.randomTable("once_tx"))
                        .createTableIfMissing(true).build();
                String fx = TestDb.randomTable("once_fx");
                try (Connection c = p.getConnection()) {
                    db().createEffectTable(c, fx);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
                return new Fixture(p, s, fx);
            });
            pool = f.pool();
            store = f.store();
            effects = f.effects();
            namespace = "tx" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
            once = Idempotency.builder(store).transactional()
                    .config(IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(30)).build())
                    .listener(new OnceListener() {
                        @Override
                        public void onOutcome(Outcome<?> outcome, Duration elapsed) {
                            reported.incrementAndGet();
                        }
                    })
                    .build();
        }

        IdempotencyKey key(String id) {
            return IdempotencyKey.of(namespace, id);
        }

        /** A handler whose effect is one row in the business table, written on the transaction's connection. */
        Task<String> effectTask(IdempotencyKey key, String result) {
            return new Task<>(key, key.id().getBytes(), ResultCodec.utf8(), ctx -> {
                insertEffect(ctx.resource(Connection.class), key);
                return result;
            });
        }

        void insertEffect(Connection c, IdempotencyKey key) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + effects + " (message_id, note) VALUES (?, ?)")) {
                ps.setString(1, namespace + "/" + key.id());
                ps.setString(2, "effect");
                ps.executeUpdate();
            }
        }

        long effectsOf(IdempotencyKey key) throws SQLException {
            return TestDb.count(pool, "SELECT count(*) FROM " + effects + " WHERE message_id = '" + namespace + "/"
                    + key.id() + "'");
        }

        @Test
        @DisplayName("commit makes the effect and the completed record visible together")
        void commitMakesEffectAndRecordVisible() throws Exception {
            IdempotencyKey key = key("order-1");

            Outcome<String> outcome = once.execute(effectTask(key, "done"));

            assertThat(outcome).isInstanceOf(Outcome.Processed.class);
            assertThat(effectsOf(key)).isEqualTo(1);
            IdempotencyRecord record = StoreCalls.find(store, key).orElseThrow();
            assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
            assertThat(new String(record.result())).isEqualTo("done");
            assertThat(reported.get()).isEqualTo(1);
        }

        @Test
        @DisplayName("a duplicate after commit is skipped with the stored result, and the effect stays single")
        void duplicateAfterCommitIsSkipped() throws Exception {
            IdempotencyKey key = key("order-2");
            once.execute(effectTask(key, "first"));

            Outcome<String> again = once.execute(effectTask(key, "second"));

            assertThat(again).isInstanceOf(Outcome.Duplicate.class);
            assertThat(((Outcome.Duplicate<String>) again).result()).isEqualTo("first");
            assertThat(effectsOf(key)).isEqualTo(1);
        }

        @Test
        @DisplayName("a failing handler rolls back its effect and the claim; a redelivery then processes")
        void handlerFailureRollsBackBoth() throws Exception {
            IdempotencyKey key = key("order-3");
            Task<String> failing = new Task<>(key, null, ResultCodec.utf8(), ctx -> {
                insertEffect(ctx.resource(Connection.class), key);
                throw new IllegalStateException("payment declined");
            });

            Outcome<String> outcome = once.execute(failing);

            assertThat(outcome).isInstanceOf(Outcome.Failed.class);
            assertThat(effectsOf(key)).isZero();
            assertThat(StoreCalls.find(store, key)).isEmpty();
            assertThat(once.execute(effectTask(key, "ok"))).isInstanceOf(Outcome.Processed.class);
            assertThat(effectsOf(key)).isEqualTo(1);
        }

        @Test
        @DisplayName("16 threads racing one key: exactly one effect row, one Processed, the rest Duplicate or Busy")
        void sixteenThreadsOneEffect() throws Exception {
            IdempotencyKey key = key("race");
            ExecutorService pool16 = Executors.newFixedThreadPool(16);
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Outcome<String>>> futures = new ArrayList<>();
            try {
                for (int i = 0; i < 16; i++) {
                    futures.add(pool16.submit(() -> {
                        start.await();
                        return once.execute(effectTask(key, "winner"));
                    }));
                }
                start.countDown();
                int processed = 0;
                for (Future<Outcome<String>> f : futures) {
                    Outcome<String> o = f.get(30, TimeUnit.SECONDS);
                    assertThat(o).isInstanceOfAny(Outcome.Processed.class, Outcome.Duplicate.class, Outcome.Busy.class);
                    processed += o instanceof Outcome.Processed ? 1 : 0;
                }
                assertThat(processed).isEqualTo(1);
                assertThat(effectsOf(key)).isEqualTo(1);
                assertThat(once.execute(effectTask(key, "late"))).isInstanceOf(Outcome.Duplicate.class);
            } finally {
                pool16.shutdownNow();
            }
        }

        @Test
        @DisplayName("a concurrent duplicate waits on the uncommitted row, then sees Duplicate (H2 may answer Busy at once)")
        void concurrentDuplicateWaitsThenSeesDuplicate() throws Exception {
            IdempotencyKey key = key("waiter");
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch claimed = new CountDownLatch(1);
            Task<String> slow = new Task<>(key, key.id().getBytes(), ResultCodec.utf8(), ctx -> {
                insertEffect(ctx.resource(Connection.class), key);
                claimed.countDown();
                assertThat(release.await(60, TimeUnit.SECONDS)).isTrue();
                return "first";
            });
            long[] firstReturnedAt = new long[1];
            CompletableFuture<Outcome<String>> first = CompletableFuture.supplyAsync(() -> {
                Outcome<String> outcome = once.execute(slow);
                firstReturnedAt[0] = System.nanoTime();
                return outcome;
            });
            Thread[] waiter = new Thread[1];
            long[] secondAnsweredAt = new long[1];
            CompletableFuture<Outcome<String>> second;
            try {
                // Bounds for a loaded machine: each only ends a wait that normally takes milliseconds.
                assertThat(claimed.await(30, TimeUnit.SECONDS)).isTrue();
                second = CompletableFuture.supplyAsync(() -> {
                    waiter[0] = Thread.currentThread();
                    Outcome<String> outcome = once.execute(effectTask(key, "second"));
                    secondAnsweredAt[0] = System.nanoTime();
                    return outcome;
                });
                await().atMost(Duration.ofSeconds(30)).until(() -> second.isDone() || waitsOnLock(waiter[0]));
            } finally {
                // Never leave the first transaction open (and its table locked) when a wait above gives up.
                release.countDown();
            }

            assertThat(first.get(30, TimeUnit.SECONDS)).isInstanceOf(Outcome.Processed.class);
            Outcome<String> duplicate = second.get(30, TimeUnit.SECONDS);
            if (duplicate instanceof Outcome.Busy) {
                // Only H2 may answer without waiting: it reports the uncommitted key at once, which is Busy (before
                // the first committed, never after), and the retry after the commit is the Duplicate.
                assertThat(db()).as("a database that answered Busy instead of waiting").isEqualTo(TestDb.H2);
                assertThat(secondAnsweredAt[0]).as("Busy answered before the first committed")
                        .isLessThan(firstReturnedAt[0]);
                duplicate = once.execute(effectTask(key, "retry"));
            }
            assertThat(duplicate).isInstanceOf(Outcome.Duplicate.class);
            assertThat(((Outcome.Duplicate<String>) duplicate).result()).isEqualTo("first");
            assertThat(effectsOf(key)).isEqualTo(1);
        }

        /** The second claim is blocked on the first one's uncommitted row. */
        private boolean waitsOnLock(Thread thread) throws SQLException {
            if (db() == TestDb.H2) {
                // H2 runs in this process and shows no lock wait in its sessions table (it waits inside MERGE,
                // sleeping between tries, until the other transaction ends): the claiming thread is parked or
                // sleeping, inside H2's code. Running H2 code is not enough: it may not have reached the row yet.
                return thread != null
                        && (thread.getState() == Thread.State.TIMED_WAITING || thread.getState() == Thread.State.WAITING)
                        && Arrays.stream(thread.getStackTrace()).anyMatch(f -> f.getClassName().startsWith("org.h2."));
            }
            return TestDb.count(pool, db().lockWaitersQuery()) >= 1;
        }

        @Test
        @DisplayName("a batch commits in one transaction; a failing task rolls back only its own effect; repeats are duplicates")
        void batchIsolatesFailuresAndAnswersRepeats() throws Exception {
            once.execute(effectTask(key("b-0"), "earlier"));
            IdempotencyKey failingKey = key("b-2");
            Task<String> failing = new Task<>(failingKey, null, ResultCodec.utf8(), ctx -> {
                insertEffect(ctx.resource(Connection.class), failingKey);
                throw new IllegalStateException("out of stock");
            });
            List<Task<String>> batch = List.of(effectTask(key("b-0"), "x"), effectTask(key("b-1"), "one"), failing,
                    effectTask(key("b-3"), "three"), effectTask(key("b-1"), "one again"), effectTask(key("b-4"), "four"));

            List<Outcome<String>> outcomes = once.executeAll(batch);

            assertThat(outcomes).extracting(o -> o.getClass().getSimpleName())
                    .containsExactly("Duplicate", "Processed", "Failed", "Processed", "Duplicate", "Processed");
            assertThat(((Outcome.Duplicate<String>) outcomes.get(0)).result()).isEqualTo("earlier");
            assertThat(((Outcome.Duplicate<String>) outcomes.get(4)).result()).isEqualTo("one");
            for (String id : List.of("b-0", "b-1", "b-3", "b-4")) {
                assertThat(effectsOf(key(id))).as("effects of %s", id).isEqualTo(1);
            }
            assertThat(effectsOf(failingKey)).isZero();
            IdempotencyRecord released = StoreCalls.find(store, failingKey).orElseThrow();
            assertThat(released.state()).isEqualTo(RecordState.IN_PROGRESS);
            assertThat(released.leaseUntil()).isBefore(Instant.now().plusSeconds(1));
            assertThat(once.execute(effectTask(failingKey, "retried"))).isInstanceOf(Outcome.Processed.class);
            assertThat(effectsOf(failingKey)).isEqualTo(1);
        }

        @Test
        @DisplayName("a batch records its completions with one statement; a failed task's effect and record roll back")
        void batchRecordsCompletionsInOneStatement() throws Exception {
            List<String> calls = java.util.Collections.synchronizedList(new ArrayList<>());
            Idempotency batched = Idempotency.builder(store).transactional()
                    .config(IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(30)).build())
                    .listener(new OnceListener() {
                        @Override
                        public void onStoreCall(OnceListener.StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
                            calls.add(operation + ":" + keys + (failure == null ? "" : ":failed"));
                        }
                    })
                    .build();
            List<Task<String>> batch = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                IdempotencyKey key = key("one-" + i);
                batch.add(i != 7 ? effectTask(key, "r" + i) : new Task<>(key, null, ResultCodec.utf8(), ctx -> {
                    insertEffect(ctx.resource(Connection.class), key);
                    throw new IllegalStateException("declined");
                }));
            }

            List<Outcome<String>> outcomes = batched.executeAll(batch);

            // The first run claims all 20 and rolls back when task 7 throws; the second claims all 20 again,
            // releases task 7's key instead of running it, and records the other 19 with one statement.
            assertThat(calls).containsExactly("CLAIM:20", "CLAIM:20", "RELEASE:1", "COMPLETE:19");
            for (int i = 0; i < 20; i++) {
                IdempotencyKey key = key("one-" + i);
                IdempotencyRecord record = StoreCalls.find(store, key).orElseThrow();
                if (i == 7) {
                    assertThat(outcomes.get(i)).isInstanceOf(Outcome.Failed.class);
                    assertThat(effectsOf(key)).isZero();
                    assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
                    assertThat(record.result()).isNull();
                } else {
                    assertThat(outcomes.get(i)).isInstanceOf(Outcome.Processed.class);
                    assertThat(effectsOf(key)).as("effects of %s", i).isEqualTo(1);
                    assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
                    assertThat(new String(record.result())).isEqualTo("r" + i);
                }
            }
        }

        @Test
        @DisplayName("a batch whose handlers all succeed takes no savepoint: one claim, one completion, one commit")
        void batchWithoutFailureTakesNoSavepoint() throws Exception {
            AtomicInteger savepoints = new AtomicInteger();
            AtomicInteger commits = new AtomicInteger();
            JdbcIdempotencyStore counted = JdbcIdempotencyStore.builder(
                            CountingDataSource.counting(pool, Map.of("setSavepoint", savepoints, "commit", commits)))
                    .tableName(store.tableName()).build();
            Idempotency batched = Idempotency.builder(counted).transactional()
                    .config(IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(30)).build()).build();
            List<Task<String>> batch = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                batch.add(effectTask(key("ok-" + i), "r" + i));
            }

            List<Outcome<String>> outcomes = batched.executeAll(batch);

            assertThat(outcomes).hasSize(20).allMatch(o -> o instanceof Outcome.Processed);
            assertThat(savepoints.get()).isZero();
            assertThat(commits.get()).isEqualTo(1);
            assertThat(namespaceEffects()).isEqualTo(20);
            for (int i = 0; i < 20; i++) {
                assertThat(StoreCalls.find(store, key("ok-" + i)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
            }
        }

        @Test
        @DisplayName("2 of 20 handlers fail: 18 effects and records commit; the 2 keys have no effect and can be claimed")
        void twoOfTwentyFail() throws Exception {
            AtomicInteger savepoints = new AtomicInteger();
            AtomicInteger commits = new AtomicInteger();
            JdbcIdempotencyStore counted = JdbcIdempotencyStore.builder(
                            CountingDataSource.counting(pool, Map.of("setSavepoint", savepoints, "commit", commits)))
                    .tableName(store.tableName()).build();
            Idempotency batched = Idempotency.builder(counted).transactional()
                    .config(IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(30)).build()).build();
            List<Integer> failing = List.of(5, 13);
            int[] runs = new int[20];
            List<Task<String>> batch = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                IdempotencyKey key = key("some-" + i);
                int index = i;
                batch.add(new Task<>(key, key.id().getBytes(), ResultCodec.utf8(), ctx -> {
                    runs[index]++;
                    insertEffect(ctx.resource(Connection.class), key);
                    if (failing.contains(index)) {
                        throw new IllegalStateException("declined " + index);
                    }
                    return "r" + index;
                }));
            }

            List<Outcome<String>> outcomes = batched.executeAll(batch);

            assertThat(namespaceEffects()).isEqualTo(18);
            for (int i = 0; i < 20; i++) {
                IdempotencyKey key = key("some-" + i);
                if (failing.contains(i)) {
                    assertThat(outcomes.get(i)).isInstanceOf(Outcome.Failed.class);
                    assertThat(((Outcome.Failed<String>) outcomes.get(i)).cause()).hasMessage("declined " + i);
                    assertThat(effectsOf(key)).isZero();
                    assertThat(StoreCalls.find(store, key).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
                    assertThat(StoreCalls.claim(store, new ClaimRequest(key, null, Duration.ofSeconds(30), Duration.ofHours(1))))
                            .as("claim of failed %s", i).isInstanceOf(ClaimResult.Acquired.class);
                } else {
                    assertThat(outcomes.get(i)).isInstanceOf(Outcome.Processed.class);
                    assertThat(effectsOf(key)).as("effects of %s", i).isEqualTo(1);
                    IdempotencyRecord record = StoreCalls.find(store, key).orElseThrow();
                    assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
                    assertThat(new String(record.result())).isEqualTo("r" + i);
                }
            }
            // Task 5 rolled the first run back; the second ran 0-4 again without savepoints, skipped 5 and ran 6-19
            // under one savepoint each, so 13 rolled back only its own effect: two transactions, one commit.
            assertThat(runs).containsExactly(2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
            assertThat(savepoints.get()).isEqualTo(14);
            assertThat(commits.get()).isEqualTo(1);
        }

        long namespaceEffects() throws SQLException {
            return TestDb.count(pool, "SELECT count(*) FROM " + effects + " WHERE message_id LIKE '" + namespace + "/%'");
        }

        @Test
        @DisplayName("inside a caller-managed transaction: the caller's rollback undoes both, its commit keeps both")
        void callerManagedTransaction() throws Exception {
            IdempotencyKey key = key("caller");
            try (Connection c = pool.getConnection()) {
                c.setAutoCommit(false);
                assertThat(once.execute(store.joining(c), effectTask(key, "in caller tx"))).isInstanceOf(Outcome.Processed.class);
                c.rollback();
                assertThat(effectsOf(key)).isZero();
                assertThat(StoreCalls.find(store, key)).isEmpty();

                assertThat(once.execute(store.joining(c), effectTask(key, "in caller tx"))).isInstanceOf(Outcome.Processed.class);
                assertThat(c.getAutoCommit()).isFalse();
                c.commit();
                c.setAutoCommit(true);
            }
            assertThat(effectsOf(key)).isEqualTo(1);
            assertThat(StoreCalls.find(store, key).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
            try (Connection c = pool.getConnection()) {
                assertThatThrownBy(() -> once.execute(store.joining(c), effectTask(key, "x")))
                        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("autoCommit");
            }
        }

        @Test
        @DisplayName("a handler cannot commit the transaction on its own")
        void handlerCannotCommit() throws Exception {
            IdempotencyKey key = key("sneaky");
            Outcome<String> outcome = once.execute(new Task<>(key, null, ResultCodec.utf8(), ctx -> {
                Connection c = ctx.resource(Connection.class);
                insertEffect(c, key);
                c.commit();
                return "committed early";
            }));

            assertThat(outcome).isInstanceOf(Outcome.Failed.class);
            assertThat(((Outcome.Failed<String>) outcome).cause()).isInstanceOf(IllegalStateException.class);
            assertThat(effectsOf(key)).isZero();
        }
    }

    /** PostgreSQL and MariaDB: a connection can be cut from another session (H2 in memory lives in this process). */
    abstract static class NetworkedVariant extends Variant {
        @Test
    @DisplayName("the connection breaking after the effect and before commit leaves neither effect nor record")
    void connectionBreakBeforeCommitLeavesNeither() throws Exception {
        IdempotencyKey key = key("order-4");
        Task<String> crashing = new Task<>(key, null, ResultCodec.utf8(), ctx -> {
            Connection c = ctx.resource(Connection.class);
            insertEffect(c, key);
            killSession(c);
            return "never recorded";
        });

        assertThatThrownBy(() -> once.execute(crashing)).isInstanceOf(OnceException.class);

        assertThat(effectsOf(key)).isZero();
        assertThat(StoreCalls.find(store, key)).isEmpty();
        assertThat(once.execute(effectTask(key, "after restart"))).isInstanceOf(Outcome.Processed.class);
        assertThat(effectsOf(key)).isEqualTo(1);
    }

    private void killSession(Connection victim) throws SQLException {
        long id;
        try (Statement st = victim.createStatement(); ResultSet rs = st.executeQuery(db().sessionIdQuery())) {
            rs.next();
            id = rs.getLong(1);
        }
        try (Connection killer = pool.getConnection(); Statement st = killer.createStatement()) {
            st.execute(db().killSession(id));
        }
        if (db() == TestDb.POSTGRESQL) {
            // pg_terminate_backend only signals: wait until the backend is gone.
            await().atMost(Duration.ofSeconds(5)).until(() ->
                    TestDb.count(pool, "SELECT count(*) FROM pg_stat_activity WHERE pid = " + id) == 0);
        }
    }
    }

    @Nested
    @DisplayName("PostgreSQL, READ COMMITTED")
    class PostgresReadCommitted extends NetworkedVariant {
        TestDb db() { return TestDb.POSTGRESQL; }
        String isolation() { return "TRANSACTION_READ_COMMITTED"; }
    }

    @Nested
    @DisplayName("PostgreSQL, REPEATABLE READ")
    class PostgresRepeatableRead extends NetworkedVariant {
        TestDb db() { return TestDb.POSTGRESQL; }
        String isolation() { return "TRANSACTION_REPEATABLE_READ"; }
    }

    @Nested
    @DisplayName("MariaDB, READ COMMITTED")
    class MariaDbReadCommitted extends NetworkedVariant {
        TestDb db() { return TestDb.MARIADB; }
        String isolation() { return "TRANSACTION_READ_COMMITTED"; }
    }

    @Nested
    @DisplayName("MariaDB, REPEATABLE READ")
    class MariaDbRepeatableRead extends NetworkedVariant {
        TestDb db() { return TestDb.MARIADB; }
        String isolation() { return "TRANSACTION_REPEATABLE_READ"; }
    }

    @Nested
    @DisplayName("H2, READ COMMITTED")
    class H2ReadCommitted extends Variant {
        TestDb db() { return TestDb.H2; }
        String isolation() { return "TRANSACTION_READ_COMMITTED"; }
    }
}
