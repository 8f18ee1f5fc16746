package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.RecordState;
import io.github.once.ResultCodec;
import io.github.once.testkit.StoreCalls;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Steps in the transactional scope: a step's record is written on the message's connection and commits with it. */
class TransactionalStepTest {

    private HikariDataSource pool;
    private JdbcIdempotencyStore store;
    private String effects;
    private Idempotency once;
    private IdempotencyKey order;

    private void open(TestDb db) throws SQLException {
        pool = db.pool("TRANSACTION_READ_COMMITTED", true);
        store = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_step"))
                .createTableIfMissing(true).build();
        effects = TestDb.randomTable("once_step_fx");
        try (Connection c = pool.getConnection()) {
            db.createEffectTable(c, effects);
        }
        once = Idempotency.builder(store).transactional().build();
        order = IdempotencyKey.of("orders", "o-" + UUID.randomUUID());
    }

    @AfterEach
    void close() throws SQLException {
        once.close();
        TestDb.drop(pool, store.tableName(), effects);
        pool.close();
    }

    private void effect(Connection c, String note) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + effects + " (message_id, note) VALUES (?, ?)")) {
            ps.setString(1, order.id());
            ps.setString(2, note);
            ps.executeUpdate();
        }
    }

    private long effects(String note) throws SQLException {
        return TestDb.count(pool, "SELECT count(*) FROM " + effects + " WHERE note = '" + note + "'");
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    @DisplayName("a step's record and its writes roll back with a message that fails after it, and commit with one that succeeds")
    void stepCommitsWithTheMessage(TestDb db) throws Exception {
        open(db);
        boolean[] failLater = {true};

        for (int attempt = 0; attempt < 2; attempt++) {
            Outcome<String> outcome = once.execute(order, null, ResultCodec.utf8(), ctx -> {
                Connection c = ctx.resource(Connection.class);
                String stock = ctx.step("deduct-stock", () -> {
                    effect(c, "stock");
                    return "deducted";
                });
                if (failLater[0]) {
                    throw new IllegalStateException("the next step failed");
                }
                return stock;
            });
            if (attempt == 0) {
                assertThat(outcome).isInstanceOf(Outcome.Failed.class);
                assertThat(effects("stock")).isZero();
                assertThat(StoreCalls.find(store, order.forStep("deduct-stock"))).isEmpty();
                failLater[0] = false;
            } else {
                assertThat(outcome).isInstanceOf(Outcome.Processed.class);
            }
        }

        assertThat(effects("stock")).isEqualTo(1);
        assertThat(StoreCalls.find(store, order.forStep("deduct-stock")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
        assertThat(StoreCalls.find(store, order).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @ParameterizedTest
    @EnumSource(value = TestDb.class, names = {"POSTGRESQL", "MARIADB"})
    @DisplayName("a step that throws is undone to its savepoint; the handler may go on and the message commits without it")
    void throwingStepIsUndone(TestDb db) throws Exception {
        open(db);

        Outcome<String> outcome = once.execute(order, null, ResultCodec.utf8(), ctx -> {
            Connection c = ctx.resource(Connection.class);
            effect(c, "before");
            try {
                ctx.step("charge", () -> {
                    effect(c, "charge");
                    throw new IllegalStateException("declined");
                });
            } catch (IllegalStateException declined) {
                effect(c, "declined");
            }
            return "handled";
        });

        assertThat(outcome).isInstanceOf(Outcome.Processed.class);
        assertThat(effects("before")).isEqualTo(1);
        assertThat(effects("charge")).isZero();
        assertThat(effects("declined")).isEqualTo(1);
        assertThat(StoreCalls.find(store, order.forStep("charge"))).isEmpty();
    }
}
