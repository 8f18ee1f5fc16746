package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.Outcome;
import io.github.once.PayloadFingerprint;
import io.github.once.RecordState;
import io.github.once.ResultCodec;
import io.github.once.Task;
import io.github.once.TaskPipeline;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pipeline of an executor in the transactional scope (group commit), on PostgreSQL and MariaDB: each task's
 * outcome comes only once its effect and record are committed, a failing handler's effect alone is undone, a
 * repeat waits for the group ahead; on PostgreSQL (whose deferred triggers run at commit) a slow commit overlaps
 * the next group's handlers, and a failed commit fails its whole group with nothing of it kept.
 */
class GroupCommitPipelineTest {

    private TestDb db;
    private HikariDataSource pool;
    private JdbcIdempotencyStore store;
    private String effects;
    private String namespace;
    private Idempotency once;
    private final Semaphore wakes = new Semaphore(0);
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    /** Per id, what the test saw through its own connection when the outcome came in. */
    private final Map<String, String> seenAtOutcome = new ConcurrentHashMap<>();
    private final Map<String, Outcome<String>> outcomes = new ConcurrentHashMap<>();
    private final Map<String, Throwable> failures = new ConcurrentHashMap<>();
    private final List<String> order = new ArrayList<>();
    private boolean atCommit;

    void open(TestDb database) throws SQLException {
        open(database, PayloadFingerprint.SHA_256);
    }

    void open(TestDb database, PayloadFingerprint fingerprint) throws SQLException {
        db = database;
        pool = db.pool("TRANSACTION_READ_COMMITTED", true);
        store = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_gc"))
                .createTableIfMissing(true).build();
        effects = TestDb.randomTable("once_gcfx");
        try (Connection c = pool.getConnection()) {
            db.createEffectTable(c, effects);
        }
        namespace = "gc" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        once = JdbcTransactionScope.executor(store)
                .config(IdempotencyConfig.custom().leaseDuration(Duration.ofSeconds(30)).fingerprint(fingerprint)
                        .build()).build();
    }

    @AfterEach
    void close() throws SQLException {
        if (pool != null) {
            once.close();
            TestDb.drop(pool, store.tableName(), effects); // its triggers go with it
            if (atCommit) {
                try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
                    st.execute("DROP FUNCTION IF EXISTS " + effects + "_at_commit()");
                }
            }
            pool.close();
        }
    }

    /**
     * A deferred trigger on the effect table (PostgreSQL), which runs at commit: a transaction that wrote the
     * row {@code id} runs {@code statement} as it commits.
     */
    private void atCommit(String id, String statement) throws SQLException {
        atCommit = true;
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE FUNCTION " + effects + "_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " IF NEW.message_id = '" + id + "' THEN " + statement + "; END IF; RETURN NULL; END $$");
            st.execute("CREATE CONSTRAINT TRIGGER at_commit AFTER INSERT ON " + effects
                    + " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION " + effects + "_at_commit()");
        }
    }

    private IdempotencyKey key(String id) {
        return IdempotencyKey.of(namespace, id);
    }

    /** Writes one effect row on the transaction's connection; throws after it for ids starting with "fail". */
    private Task<String> task(String id) {
        return new Task<>(key(id), id.getBytes(), ResultCodec.utf8(), ctx -> {
            runs.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            try (PreparedStatement ps = ctx.resource(Connection.class)
                    .prepareStatement("INSERT INTO " + effects + " (message_id, note) VALUES (?, ?)")) {
                ps.setString(1, id);
                ps.setString(2, "effect");
                ps.executeUpdate();
            }
            if (id.startsWith("fail")) {
                throw new IllegalStateException("handler of " + id + " fails after its write");
            }
            return "done-" + id;
        });
    }

    private long effectsOf(String id) throws SQLException {
        return TestDb.count(pool, "SELECT count(*) FROM " + effects + " WHERE message_id = '" + id + "'");
    }

    private Optional<RecordState> record(String id) {
        return store.find(key(id)).map(IdempotencyRecord::state);
    }

    /** Submits tasks; each outcome notes what the test's own connection sees of it at that moment. */
    private void submit(TaskPipeline<String> pipeline, String... ids) {
        for (String id : ids) {
            pipeline.submit(task(id)).whenComplete((outcome, failure) -> {
                order.add(id);
                if (failure != null) {
                    failures.put(id, failure);
                    return;
                }
                outcomes.put(id, outcome);
                try {
                    seenAtOutcome.put(id, effectsOf(id) + " effect(s), record " + record(id).orElse(null));
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
        }
    }

    private void drive(TaskPipeline<String> pipeline) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (pipeline.size() > 0) {
            if (!pipeline.step()) {
                long left = deadline - System.nanoTime();
                assertThat(left > 0 && wakes.tryAcquire(Math.max(left, 0), TimeUnit.NANOSECONDS))
                        .as("the pipeline was woken within 30 s").isTrue();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    void everyOutcomeComesOnlyOnceItsEffectAndRecordAreCommitted(TestDb database) throws Exception {
        open(database);
        TaskPipeline<String> pipeline = once.pipeline(7, wakes::release);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            ids.add("m" + i);
        }
        // Submitted in three waves between steps, so groups form from what waited while the one ahead committed.
        for (int wave = 0; wave < 3; wave++) {
            submit(pipeline, ids.subList(wave * 20, wave * 20 + 20).toArray(String[]::new));
            pipeline.step();
        }
        drive(pipeline);

        assertThat(failures).isEmpty();
        assertThat(order).as("outcomes in submission order").containsExactlyElementsOf(ids);
        for (String id : ids) {
            assertThat(outcomes.get(id)).as(id).isInstanceOf(Outcome.Processed.class);
            assertThat(seenAtOutcome.get(id)).as("seen from outside when %s's outcome came", id)
                    .isEqualTo("1 effect(s), record COMPLETED");
            assertThat(runs.get(id)).as(id).hasValue(1);
        }
        assertThat(TestDb.count(pool, "SELECT count(*) FROM " + effects)).isEqualTo(60);
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    void aFailingHandlerInAGroupUndoesOnlyItsOwnEffectAndGivesItsKeyBack(TestDb database) throws Exception {
        open(database);
        TaskPipeline<String> pipeline = once.pipeline(10, wakes::release);
        submit(pipeline, "a", "b", "fail-c", "d", "e");
        drive(pipeline);

        assertThat(failures).isEmpty();
        assertThat(outcomes.get("fail-c")).isInstanceOf(Outcome.Failed.class);
        for (String id : List.of("a", "b", "d", "e")) {
            assertThat(outcomes.get(id)).as(id).isInstanceOf(Outcome.Processed.class);
            assertThat(effectsOf(id)).as(id).isEqualTo(1);
            assertThat(seenAtOutcome.get(id)).as(id).isEqualTo("1 effect(s), record COMPLETED");
        }
        assertThat(effectsOf("fail-c")).isZero();
        assertThat(record("fail-c")).as("released, not completed").contains(RecordState.IN_PROGRESS);
        assertThat(store.claim(new ClaimRequest(key("fail-c"), null, Duration.ofSeconds(5), Duration.ofMinutes(5))))
                .as("the failed task's key is free for its retry").isInstanceOf(ClaimResult.Acquired.class);
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    void aPayloadThatCannotBeFingerprintedFailsItsOwnTaskAndNotItsGroup(TestDb database) throws Exception {
        IllegalArgumentException refused = new IllegalArgumentException("body is not JSON");
        open(database, payload -> {
            if (new String(payload).equals("malformed")) {
                throw refused;
            }
            return PayloadFingerprint.SHA_256.of(payload);
        });
        TaskPipeline<String> pipeline = once.pipeline(10, wakes::release);
        submit(pipeline, "before", "malformed", "after");
        drive(pipeline);

        assertThat(failures).containsOnlyKeys("malformed");
        assertThat(failures.get("malformed")).isSameAs(refused);
        assertThat(runs).as("handlers run").containsOnlyKeys("before", "after");
        assertThat(record("malformed")).isEmpty();
        for (String id : List.of("before", "after")) {
            assertThat(outcomes.get(id)).as(id).isInstanceOf(Outcome.Processed.class);
            assertThat(seenAtOutcome.get(id)).as(id).isEqualTo("1 effect(s), record COMPLETED");
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    void aRepeatedKeyWaitsForTheGroupAheadToCommitAndIsADuplicate(TestDb database) throws Exception {
        open(database);
        TaskPipeline<String> pipeline = once.pipeline(1, wakes::release); // one task per group
        submit(pipeline, "x", "y", "x", "z");
        drive(pipeline);

        assertThat(failures).isEmpty();
        assertThat(order).containsExactly("x", "y", "x", "z");
        assertThat(outcomes.get("x")).isInstanceOf(Outcome.Duplicate.class); // the later one, kept last
        assertThat(runs.get("x")).hasValue(1);
        assertThat(effectsOf("x")).isEqualTo(1);
        assertThat(outcomes.get("y")).isInstanceOf(Outcome.Processed.class);
        assertThat(outcomes.get("z")).isInstanceOf(Outcome.Processed.class);
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    void aStepThatTakesInOutcomesRunsNoFurtherGroupSoTheCallerAcksFirst(TestDb database) throws Exception {
        open(database);
        TaskPipeline<String> pipeline = once.pipeline(10, wakes::release);
        submit(pipeline, "first");
        pipeline.step(); // runs the group [first]; its commit starts on another thread
        assertThat(wakes.tryAcquire(30, TimeUnit.SECONDS)).as("the commit answered").isTrue();
        submit(pipeline, "second");

        assertThat(pipeline.step()).isTrue();
        assertThat(outcomes.get("first")).isInstanceOf(Outcome.Processed.class);
        assertThat(runs).as("no handler ran in the step that brought first's outcome").containsOnlyKeys("first");
        drive(pipeline);
        assertThat(outcomes.get("second")).isInstanceOf(Outcome.Processed.class);
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    void abandonEndsTheTasksNotRunAndLetsTheGroupInFlightCommit(TestDb database) throws Exception {
        open(database);
        TaskPipeline<String> pipeline = once.pipeline(1, wakes::release); // one task per group
        submit(pipeline, "kept", "dropped-1", "dropped-2");
        pipeline.step(); // the group [kept] runs; its commit starts
        IllegalStateException stopping = new IllegalStateException("stopping");
        pipeline.abandon(stopping);
        drive(pipeline);

        assertThat(outcomes.get("kept")).isInstanceOf(Outcome.Processed.class);
        assertThat(seenAtOutcome.get("kept")).isEqualTo("1 effect(s), record COMPLETED");
        assertThat(failures).containsOnlyKeys("dropped-1", "dropped-2");
        assertThat(failures.get("dropped-1")).isSameAs(stopping);
        assertThat(runs).as("handlers run").containsOnlyKeys("kept");
        for (String id : List.of("dropped-1", "dropped-2")) {
            assertThat(record(id)).as(id).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = "POSTGRESQL")
    void theNextGroupRunsWhileTheGroupAheadCommitsAndOutcomesKeepTheirOrder(TestDb database) throws Exception {
        open(database);
        atCommit("slow", "PERFORM pg_sleep(1)"); // the commit of a transaction that wrote "slow" takes 1 s
        TaskPipeline<String> pipeline = once.pipeline(10, wakes::release);
        Map<String, Boolean> slowDoneWhenRun = new ConcurrentHashMap<>();
        submit(pipeline, "slow");
        pipeline.step(); // the group [slow] runs, and its commit starts on another thread
        Task<String> after = new Task<>(key("after"), null, ResultCodec.utf8(), ctx -> {
            slowDoneWhenRun.put("after", outcomes.containsKey("slow"));
            return "ran";
        });
        pipeline.submit(after).whenComplete((outcome, failure) -> {
            order.add("after");
            outcomes.put("after", outcome);
        });
        drive(pipeline);

        assertThat(slowDoneWhenRun).as("the next group's handler ran before the slow commit answered")
                .containsEntry("after", false);
        assertThat(order).as("outcomes in commit order").containsExactly("slow", "after");
        assertThat(seenAtOutcome.get("slow")).isEqualTo("1 effect(s), record COMPLETED");
        assertThat(outcomes.get("after")).isInstanceOf(Outcome.Processed.class);
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = "POSTGRESQL")
    void aFailedCommitFailsItsWholeGroupAndKeepsNothingOfIt(TestDb database) throws Exception {
        open(database);
        atCommit("poison", "RAISE EXCEPTION 'refused at commit'"); // the whole transaction rolls back then
        TaskPipeline<String> pipeline = once.pipeline(10, wakes::release);
        submit(pipeline, "p1", "poison", "p2");
        drive(pipeline);

        assertThat(outcomes).as("no outcome for a task whose commit failed").isEmpty();
        assertThat(failures).containsOnlyKeys("p1", "poison", "p2");
        assertThat(failures.get("p1")).hasMessageContaining("refused at commit");
        for (String id : List.of("p1", "poison", "p2")) {
            assertThat(effectsOf(id)).as(id).isZero();
            assertThat(record(id)).as(id).isEmpty();
        }
    }
}
