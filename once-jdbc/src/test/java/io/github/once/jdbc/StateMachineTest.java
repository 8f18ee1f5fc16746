package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Status transitions on each real database: one winner among racing moves, and the two traps closed. */
class StateMachineTest {

    private static final Map<TestDb, HikariDataSource> POOLS = new EnumMap<>(TestDb.class);
    private static final Map<TestDb, String> TABLES = new EnumMap<>(TestDb.class);

    @AfterAll
    static void dropTables() throws SQLException {
        for (Map.Entry<TestDb, HikariDataSource> e : POOLS.entrySet()) {
            try (HikariDataSource pool = e.getValue()) {
                TestDb.drop(pool, TABLES.get(e.getKey()));
            }
        }
    }

    private static synchronized HikariDataSource pool(TestDb db) throws SQLException {
        HikariDataSource pool = POOLS.get(db);
        if (pool == null) {
            pool = db.pool("TRANSACTION_READ_COMMITTED", true);
            String table = TestDb.randomTable("orders");
            String timestamp = db == TestDb.MARIADB ? "DATETIME(6)" : "TIMESTAMP";
            try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
                st.execute("CREATE TABLE " + table + " (id VARCHAR(64) PRIMARY KEY, status VARCHAR(32) NOT NULL,"
                        + " version BIGINT NOT NULL, processing_until " + timestamp + " NULL)");
            }
            POOLS.put(db, pool);
            TABLES.put(db, table);
        }
        return pool;
    }

    private static StateMachine.Builder orders(TestDb db, boolean retryAfterFailure) throws SQLException {
        pool(db);
        StateMachine.Builder b = StateMachine.builder(TABLES.get(db))
                .deadlineColumn("processing_until")
                .transition("new", "processing")
                .transition("processing", "paid")
                .transition("processing", "failed")
                .inFlight("processing", Duration.ofSeconds(1));
        return retryAfterFailure ? b.transition("failed", "processing") : b;
    }

    private static String newRow(TestDb db, String status) throws SQLException {
        String id = "o-" + java.util.UUID.randomUUID();
        try (Connection c = pool(db).getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + TABLES.get(db)
                     + " (id, status, version) VALUES (?, ?, 0)")) {
            ps.setString(1, id);
            ps.setString(2, status);
            ps.executeUpdate();
        }
        return id;
    }

    private static StateMachine.Transition move(TestDb db, StateMachine machine, String id, String to) throws SQLException {
        try (Connection c = pool(db).getConnection()) {
            return machine.move(c, id, to);
        }
    }

    private static String status(TestDb db, String id) throws SQLException {
        try (Connection c = pool(db).getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT status FROM " + TABLES.get(db) + " WHERE id = ?")) {
            ps.setString(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        }
    }

    /** 16 threads, each on its own connection, run {@code move} at once; their answers in no order. */
    private static List<StateMachine.Transition> race(TestDb db, MoveCall move) throws Exception {
        int threads = 16;
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<StateMachine.Transition>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    try (Connection c = pool(db).getConnection()) {
                        start.await();
                        return move.move(c, thread);
                    }
                }));
            }
            start.countDown();
            List<StateMachine.Transition> answers = new ArrayList<>();
            for (Future<StateMachine.Transition> f : futures) {
                answers.add(f.get(60, TimeUnit.SECONDS));
            }
            return answers;
        } finally {
            pool.shutdownNow();
        }
    }

    interface MoveCall {
        StateMachine.Transition move(Connection connection, int thread) throws SQLException;
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    @DisplayName("16 threads moving one row to the same state: exactly one applies, the rest see a duplicate")
    void racingMovesApplyOnce(TestDb db) throws Exception {
        StateMachine machine = orders(db, true).build();
        String id = newRow(db, "new");

        List<StateMachine.Transition> answers = race(db, (c, thread) -> machine.move(c, id, "processing"));

        assertThat(answers).filteredOn(t -> t instanceof StateMachine.Transition.Applied).hasSize(1)
                .first().isEqualTo(new StateMachine.Transition.Applied("processing", 1));
        assertThat(answers).filteredOn(t -> !(t instanceof StateMachine.Transition.Applied))
                .hasSize(15).allMatch(t -> t.equals(new StateMachine.Transition.Duplicate("processing", 1)));
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    @DisplayName("16 threads moving one row at one version to two states: one applies, the rest see a duplicate or a conflict")
    void racingVersionedMovesApplyOnce(TestDb db) throws Exception {
        StateMachine machine = orders(db, true).build();
        String id = newRow(db, "new");
        StateMachine.Transition started = move(db, machine, id, "processing");
        assertThat(started).isEqualTo(new StateMachine.Transition.Applied("processing", 1));

        List<StateMachine.Transition> answers = race(db, (c, thread) -> machine.move(c, id, thread % 2 == 0 ? "paid" : "failed", 1));

        List<StateMachine.Transition> applied = answers.stream().filter(t -> t instanceof StateMachine.Transition.Applied).toList();
        assertThat(applied).hasSize(1);
        String winner = ((StateMachine.Transition.Applied) applied.get(0)).state();
        assertThat(applied.get(0)).isEqualTo(new StateMachine.Transition.Applied(winner, 2));
        assertThat(status(db, id)).isEqualTo(winner);
        for (StateMachine.Transition t : answers) {
            if (t instanceof StateMachine.Transition.Duplicate d) {
                assertThat(d).isEqualTo(new StateMachine.Transition.Duplicate(winner, 2));
            } else if (t instanceof StateMachine.Transition.Conflict conflict) {
                assertThat(conflict).isEqualTo(new StateMachine.Transition.Conflict(winner, 2));
            } else {
                assertThat(t).isSameAs(applied.get(0));
            }
        }
        assertThat(answers).filteredOn(t -> t instanceof StateMachine.Transition.Conflict).hasSize(8);
        assertThat(answers).filteredOn(t -> t instanceof StateMachine.Transition.Duplicate).hasSize(7);
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB", "H2"})
    @DisplayName("a repeated move is a duplicate; a move the row's state does not allow is a conflict with the state found")
    void repeatAndConflict(TestDb db) throws Exception {
        StateMachine machine = orders(db, true).build();
        String id = newRow(db, "new");

        assertThat(move(db, machine, id, "processing")).isEqualTo(new StateMachine.Transition.Applied("processing", 1));
        assertThat(move(db, machine, id, "paid")).isEqualTo(new StateMachine.Transition.Applied("paid", 2));
        assertThat(move(db, machine, id, "paid")).isEqualTo(new StateMachine.Transition.Duplicate("paid", 2));
        assertThat(move(db, machine, id, "failed")).isEqualTo(new StateMachine.Transition.Conflict("paid", 2));
        assertThat(move(db, machine, "no-such-order", "paid")).isEqualTo(new StateMachine.Transition.Missing("no-such-order"));
        try (Connection c = pool(db).getConnection()) {
            assertThat(machine.move(c, id, "paid", 1)).isEqualTo(new StateMachine.Transition.Duplicate("paid", 2));
            assertThatThrownBy(() -> machine.move(c, id, "shipped")).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("shipped");
        }
        assertThat(status(db, id)).isEqualTo("paid");
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    @DisplayName("trap 8: a row left in failed by an earlier attempt is moved to processing again by the retry")
    void failedDoesNotBlockRetry(TestDb db) throws Exception {
        StateMachine withRetry = orders(db, true).build();
        StateMachine withoutRetry = orders(db, false).build();
        String id = newRow(db, "new");
        move(db, withRetry, id, "processing");
        assertThat(move(db, withRetry, id, "failed")).isEqualTo(new StateMachine.Transition.Applied("failed", 2));

        assertThat(move(db, withoutRetry, id, "processing")).as("the trap: failed -> processing not declared")
                .isEqualTo(new StateMachine.Transition.Conflict("failed", 2));
        assertThat(move(db, withRetry, id, "processing")).isEqualTo(new StateMachine.Transition.Applied("processing", 3));
        assertThat(move(db, withRetry, id, "paid")).isEqualTo(new StateMachine.Transition.Applied("paid", 4));
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    @DisplayName("trap 7: a row stuck in processing after a crash is taken again once its deadline has passed")
    void stuckProcessingIsRecoveredAfterDeadline(TestDb db) throws Exception {
        StateMachine machine = orders(db, true).build();
        String id = newRow(db, "new");
        assertThat(move(db, machine, id, "processing")).isEqualTo(new StateMachine.Transition.Applied("processing", 1));
        // The worker crashes here: nothing moves the row out of processing.

        assertThat(move(db, machine, id, "processing")).as("within the deadline the work is in flight elsewhere")
                .isEqualTo(new StateMachine.Transition.Duplicate("processing", 1));
        StateMachine.Transition retaken = await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                .until(() -> move(db, machine, id, "processing"), t -> t instanceof StateMachine.Transition.Applied);

        assertThat(retaken).isEqualTo(new StateMachine.Transition.Applied("processing", 2));
        assertThat(move(db, machine, id, "paid")).isEqualTo(new StateMachine.Transition.Applied("paid", 3));
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    @DisplayName("trap 7: a move made in the work's transaction rolls back with it when the worker's connection dies")
    void moveInTransactionRollsBackWithCrash(TestDb db) throws Exception {
        StateMachine machine = StateMachine.builder(tableOf(db))
                .transition("new", "processing").transition("processing", "paid").build();
        String id = newRow(db, "new");
        Connection worker = DriverManager.getConnection(db.url, db.user, "");
        worker.setAutoCommit(false);
        long session;
        try (Statement st = worker.createStatement(); ResultSet rs = st.executeQuery(db.sessionIdQuery())) {
            rs.next();
            session = rs.getLong(1);
        }
        assertThat(machine.move(worker, id, "processing")).isEqualTo(new StateMachine.Transition.Applied("processing", 1));

        try (Connection admin = pool(db).getConnection(); Statement st = admin.createStatement()) {
            st.execute(db.killSession(session)); // the worker dies before its work commits
        }
        worker.close();

        assertThat(status(db, id)).isEqualTo("new");
        assertThat(move(db, machine, id, "processing")).isEqualTo(new StateMachine.Transition.Applied("processing", 1));
    }

    private static String tableOf(TestDb db) {
        try {
            pool(db);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return TABLES.get(db);
    }

    @Test
    @DisplayName("identifiers are checked; in-flight states need a deadline column and a transition into them")
    void identifiersAreChecked() {
        assertThatThrownBy(() -> StateMachine.builder("orders; DROP TABLE x")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StateMachine.builder("orders").statusColumn("status = 'x'"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StateMachine.builder("orders").transition("new", "processing")
                .inFlight("processing", Duration.ofMinutes(1)).build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("deadlineColumn");
        assertThatThrownBy(() -> StateMachine.builder("orders").deadlineColumn("until").transition("new", "done")
                .inFlight("processing", Duration.ofMinutes(1)).build()).isInstanceOf(IllegalStateException.class);
        assertThat(StateMachine.builder("shop.orders").transition("new", "processing").transition("failed", "processing")
                .build().sourcesOf("processing")).containsExactly("new", "failed");
    }
}
