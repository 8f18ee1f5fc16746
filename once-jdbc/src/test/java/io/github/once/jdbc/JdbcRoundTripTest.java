package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.ResultCodec;
import io.github.once.Task;
import io.github.once.RecordState;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counts, at the client, what the store sends per call through the real driver's connections: statements executed,
 * {@code commit()}, {@code rollback()} and {@code setAutoCommit} calls, and statements run in auto-commit mode (each
 * commits on its own, with no COMMIT after it). On a pool in auto-commit mode (the default) a new key costs one
 * statement to claim and one to complete, each its own commit: two round trips and two commits. Each record is read
 * back on another connection right after, so the commit is real.
 */
class JdbcRoundTripTest {

    private static final Duration LEASE = Duration.ofSeconds(60);
    private static final Duration RETENTION = Duration.ofHours(1);
    private static final List<String> COUNTED = List.of("executeQuery", "executeUpdate", "execute", "executeBatch",
            "executeLargeUpdate", "commit", "rollback", "setAutoCommit", CountingDataSource.AUTO_COMMITTED);

    /** What one call sent. Round trips: statements, commits and rollbacks, and auto-commit switches. */
    record Calls(int statements, int autoCommitted, int commitCalls, int rollbacks, int modeSwitches) {
        int commits() {
            return autoCommitted + commitCalls;
        }

        int roundTrips() {
            return statements + commitCalls + rollbacks + modeSwitches;
        }

        /** One statement, committed with itself, and nothing else. */
        static Calls oneAutoCommitted() {
            return new Calls(1, 1, 0, 0, 0);
        }
    }

    abstract static class Variant {
        abstract TestDb db();

        final Map<String, AtomicInteger> counters = new HashMap<>();
        HikariDataSource pool;
        /** Reads records back on connections of the same pool, uncounted. */
        JdbcIdempotencyStore plain;
        /** The same table over the counting data source. */
        JdbcIdempotencyStore counted;
        String namespace;

        @BeforeEach
        void setUp() {
            open(true);
        }

        void open(boolean autoCommit) {
            for (String name : COUNTED) {
                counters.put(name, new AtomicInteger());
            }
            pool = db().pool("TRANSACTION_READ_COMMITTED", autoCommit);
            plain = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_rt"))
                    .createTableIfMissing(true).build();
            counted = JdbcIdempotencyStore.builder(CountingDataSource.counting(pool, counters))
                    .dialect(db().dialect).tableName(plain.tableName()).build();
            namespace = "rt" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        }

        @AfterEach
        void tearDown() throws Exception {
            counted.close();
            plain.close();
            try (HikariDataSource p = pool) {
                TestDb.drop(p, plain.tableName());
            }
        }

        /** What was sent since the last take. */
        Calls take() {
            return new Calls(
                    take("executeQuery") + take("executeUpdate") + take("execute") + take("executeBatch")
                            + take("executeLargeUpdate"),
                    take(CountingDataSource.AUTO_COMMITTED), take("commit"), take("rollback"), take("setAutoCommit"));
        }

        private int take(String name) {
            return counters.get(name).getAndSet(0);
        }

        ClaimRequest request(String id) {
            return new ClaimRequest(IdempotencyKey.of(namespace, id), "fp", LEASE, RETENTION);
        }

        Lease acquire(JdbcIdempotencyStore store, String id) {
            ClaimResult result = StoreCalls.claim(store, request(id));
            assertThat(result).as("claim of %s", id).isInstanceOf(ClaimResult.Acquired.class);
            return ((ClaimResult.Acquired) result).lease();
        }

        @Test
        @DisplayName("a new key: its claim is one statement committed with itself, and so is its completion")
        void newKeyIsTwoStatementsAndTwoCommits() {
            int keys = 20;
            int statements = 0;
            int commits = 0;
            int roundTrips = 0;
            take();
            for (int i = 0; i < keys; i++) {
                Lease lease = acquire(counted, "new-" + i);
                Calls claim = take();
                assertThat(claim).as("claim of new-%d", i).isEqualTo(Calls.oneAutoCommitted());
                assertThat(StoreCalls.find(plain, lease.key()).orElseThrow().state()).as("record on another connection")
                        .isEqualTo(RecordState.IN_PROGRESS);

                assertThat(StoreCalls.complete(counted, lease, ("r" + i).getBytes(), RETENTION)).isTrue();
                Calls completion = take();
                assertThat(completion).as("completion of new-%d", i).isEqualTo(Calls.oneAutoCommitted());
                assertThat(StoreCalls.find(plain, lease.key()).orElseThrow().state()).as("record on another connection")
                        .isEqualTo(RecordState.COMPLETED);

                statements += claim.statements() + completion.statements();
                commits += claim.commits() + completion.commits();
                roundTrips += claim.roundTrips() + completion.roundTrips();
            }
            assertThat(statements).as("statements for %d new keys", keys).isEqualTo(2 * keys);
            assertThat(commits).as("commits for %d new keys", keys).isEqualTo(2 * keys);
            assertThat(roundTrips).as("round trips for %d new keys", keys).isEqualTo(2 * keys);
        }

        @Test
        @DisplayName("a duplicate, a busy key and a stale completion are one statement each")
        void duplicateBusyAndStaleAreOneStatementEach() {
            Lease done = acquire(plain, "done");
            assertThat(StoreCalls.complete(plain, done, "r".getBytes(), RETENTION)).isTrue();
            Lease live = acquire(plain, "live");
            take();

            assertThat(StoreCalls.claim(counted, request("done"))).isInstanceOf(ClaimResult.Duplicate.class);
            assertThat(take()).as("duplicate claim").isEqualTo(Calls.oneAutoCommitted());
            assertThat(StoreCalls.claim(counted, request("live"))).isInstanceOf(ClaimResult.Busy.class);
            assertThat(take()).as("busy claim").isEqualTo(Calls.oneAutoCommitted());
            Lease stale = new Lease(live.key(), live.token() + 1, live.deadline());
            assertThat(StoreCalls.complete(counted, stale, "x".getBytes(), RETENTION)).isFalse();
            assertThat(take()).as("completion with a stale token").isEqualTo(Calls.oneAutoCommitted());
            assertThat(StoreCalls.find(plain, live.key()).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        }

        @Test
        @DisplayName("release and find are one statement each")
        void releaseAndFindAreOneStatementEach() {
            Lease lease = acquire(plain, "given-back");
            take();

            assertThat(counted.release(lease)).isTrue();
            assertThat(take()).as("release").isEqualTo(Calls.oneAutoCommitted());
            assertThat(StoreCalls.find(counted, lease.key())).isPresent();
            assertThat(take()).as("find").isEqualTo(Calls.oneAutoCommitted());
        }

        @Test
        @DisplayName("a batch of 100 distinct new keys is one claim statement")
        void batchOfDistinctKeysIsOneClaimStatement() {
            List<ClaimRequest> batch = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                batch.add(request("batch-" + i));
            }
            take();

            List<ClaimResult> results = counted.claim(batch);

            assertThat(results).hasSize(100).allMatch(r -> r instanceof ClaimResult.Acquired);
            assertThat(take()).as("claimAll of 100").isEqualTo(Calls.oneAutoCommitted());
            List<Completion> completions = new ArrayList<>();
            for (ClaimResult result : results) {
                completions.add(new Completion(((ClaimResult.Acquired) result).lease(), null, RETENTION));
            }
            assertThat(counted.complete(completions)).hasSize(100).containsOnly(true);
            assertThat(take()).as("completeAll of 100").isEqualTo(batchCompletion());
        }

        /** What a completion batch of distinct keys costs on this database. */
        abstract Calls batchCompletion();

        @Test
        @DisplayName("a batch of new keys, a completed key and a busy key: each answered, in the statements its database needs")
        void batchWithKeysThatHaveARow() {
            Lease done = acquire(plain, "done");
            assertThat(StoreCalls.complete(plain, done, "r".getBytes(), RETENTION)).isTrue();
            acquire(plain, "live");
            take();

            List<ClaimResult> results = counted.claim(List.of(request("new-1"), request("done"), request("new-2"),
                    request("live")));

            assertThat(results).hasExactlyElementsOfTypes(ClaimResult.Acquired.class, ClaimResult.Duplicate.class,
                    ClaimResult.Acquired.class, ClaimResult.Busy.class);
            assertThat(take()).isEqualTo(batchWithKeysThatHaveARowCalls());
            for (int i : new int[] {0, 2}) {
                Lease lease = ((ClaimResult.Acquired) results.get(i)).lease();
                assertThat(StoreCalls.find(plain, lease.key()).orElseThrow().token()).isEqualTo(lease.token());
            }
            assertThat(((ClaimResult.Duplicate) results.get(1)).record().result()).isEqualTo("r".getBytes());
        }

        /** What a claim batch holding keys that have a row costs on this database. */
        abstract Calls batchWithKeysThatHaveARowCalls();

        @Test
        @DisplayName("a batch with a key twice runs in one transaction: two statements, one commit")
        void repeatedKeyRunsInOneTransaction() {
            take();

            List<ClaimResult> results = counted.claim(List.of(request("twice"), request("twice")));

            assertThat(results).hasExactlyElementsOfTypes(ClaimResult.Acquired.class, ClaimResult.Busy.class);
            assertThat(take()).isEqualTo(new Calls(2, 0, 1, 0, 2));
        }

        @Test
        @DisplayName("transactional mode: a batch is its claim statement and a commit; only results are written after")
        void transactionalBatchWritesItsRecordsCompletedAtTheClaim() {
            try (Idempotency once = Idempotency.builder(counted).transactional().build()) {
                List<Task<Void>> silent = new ArrayList<>();
                List<Task<String>> answering = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    silent.add(new Task<>(IdempotencyKey.of(namespace, "tx-" + i), new byte[] {1}, ResultCodec.none(),
                            ctx -> null));
                    String reply = "reply-" + i;
                    answering.add(new Task<>(IdempotencyKey.of(namespace, "tx-result-" + i), new byte[] {1},
                            ResultCodec.utf8(), ctx -> reply));
                }
                take();

                assertThat(once.executeAll(silent)).allMatch(o -> o instanceof Outcome.Processed);
                Calls withoutResults = take();
                assertThat(once.executeAll(answering)).allMatch(o -> o instanceof Outcome.Processed);
                Calls withResults = take();

                // The rows were claimed completed inside the transaction; no completion statement follows.
                assertThat(withoutResults.statements()).as("statements of a batch without results").isEqualTo(1);
                assertThat(withoutResults.commits()).isEqualTo(1);
                assertThat(withResults.statements()).as("statements of a batch with results").isEqualTo(2);
                for (int i = 0; i < 50; i++) {
                    assertThat(StoreCalls.find(plain, IdempotencyKey.of(namespace, "tx-" + i)).orElseThrow().state())
                            .isEqualTo(RecordState.COMPLETED);
                    assertThat(StoreCalls.find(plain, IdempotencyKey.of(namespace, "tx-result-" + i)).orElseThrow()
                            .result()).asString().isEqualTo("reply-" + i);
                }
                assertThat(once.executeAll(silent)).as("a batch sent again").allMatch(o -> o instanceof Outcome.Duplicate);
            }
        }

        @Test
        @DisplayName("on a pool in manual-commit mode a claim is its statement and a commit")
        void manualCommitPoolCommitsEachStep() throws Exception {
            tearDown();
            open(false);
            take();

            Lease lease = acquire(counted, "manual");

            assertThat(take()).as("claim").isEqualTo(new Calls(1, 0, 1, 0, 0));
            assertThat(StoreCalls.find(plain, lease.key())).isPresent();
            take();
            assertThat(StoreCalls.complete(counted, lease, null, RETENTION)).isTrue();
            assertThat(take()).as("completion").isEqualTo(new Calls(1, 0, 1, 0, 0));
        }
    }

    @Nested
    @DisplayName("PostgreSQL")
    class Postgres extends Variant {
        TestDb db() {
            return TestDb.POSTGRESQL;
        }

        @Override
        Calls batchCompletion() {
            return Calls.oneAutoCommitted(); // UPDATE ... RETURNING answers which keys it completed
        }

        /** The new keys are inserted first; the two keys with a row go through the full claim after. */
        @Override
        Calls batchWithKeysThatHaveARowCalls() {
            return new Calls(2, 2, 0, 0, 0);
        }
    }

    @Nested
    @DisplayName("MariaDB")
    class MariaDb extends Variant {
        TestDb db() {
            return TestDb.MARIADB;
        }

        /** No UPDATE ... RETURNING: when only some are recorded a second statement reads which, in one transaction. */
        @Override
        Calls batchCompletion() {
            return new Calls(1, 0, 1, 0, 2);
        }

        @Override
        Calls batchWithKeysThatHaveARowCalls() {
            return Calls.oneAutoCommitted();
        }

        /**
         * The server's own count agrees: on a pool of one connection, the session's status shows two statements
         * for a claim and a completion, no COMMIT and no auto-commit switch.
         */
        @Test
        @DisplayName("the server counts two statements for a new key, no COMMIT, no SET autocommit")
        void serverCountsTwoStatements() throws Exception {
            tearDown();
            for (String name : COUNTED) {
                counters.put(name, new AtomicInteger());
            }
            pool = TestDb.MARIADB.singleConnectionPool();
            plain = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_rt"))
                    .createTableIfMissing(true).build();
            counted = plain;
            Map<String, Long> idle = sessionStatusDelta(() -> { });

            Map<String, Long> newKey = sessionStatusDelta(() -> {
                Lease lease = acquire(plain, "server-counted");
                assertThat(StoreCalls.complete(plain, lease, "r".getBytes(), RETENTION)).isTrue();
            });

            assertThat(newKey.get("Questions") - idle.get("Questions")).as("statements received").isEqualTo(2);
            assertThat(newKey.get("Com_commit")).as("COMMIT statements").isZero();
            assertThat(newKey.get("Com_rollback")).as("ROLLBACK statements").isZero();
            assertThat(newKey.get("Com_set_option")).as("SET statements (autocommit switches)")
                    .isEqualTo(idle.get("Com_set_option"));
        }

        /** The session's counters after {@code work} less before it, read on the pool's one connection. */
        private Map<String, Long> sessionStatusDelta(Runnable work) throws SQLException {
            Map<String, Long> before = sessionStatus();
            work.run();
            Map<String, Long> after = sessionStatus();
            Map<String, Long> delta = new HashMap<>();
            after.forEach((name, value) -> delta.put(name, value - before.get(name)));
            return delta;
        }

        private Map<String, Long> sessionStatus() throws SQLException {
            Map<String, Long> status = new HashMap<>();
            try (Connection c = pool.getConnection(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SHOW SESSION STATUS WHERE Variable_name IN"
                         + " ('Questions', 'Com_commit', 'Com_rollback', 'Com_set_option')")) {
                while (rs.next()) {
                    status.put(rs.getString(1), rs.getLong(2));
                }
            }
            assertThat(status).hasSize(4);
            return status;
        }
    }
}
