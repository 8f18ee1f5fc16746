package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.RecordState;
import io.github.once.ResultCodec;
import io.github.once.StoreRejectedException;
import io.github.once.Task;
import io.github.once.testkit.StoreCalls;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A record the real PostgreSQL refuses (a CHECK constraint of the user's schema on the result) fails only its own
 * task, in both modes: alone, {@code execute} answers {@code Failed} with the {@link StoreRejectedException}; in a
 * batch, the executor runs the tasks again one by one, so the others complete and are read back.
 */
class RefusedRecordTest {

    private static final String NAMESPACE = "refused";

    private final HikariDataSource pool = TestDb.POSTGRESQL.pool("TRANSACTION_READ_COMMITTED", true);
    private final String table = TestDb.randomTable("once_refused");

    @AfterEach
    void dropTable() throws SQLException {
        try {
            TestDb.drop(pool, table);
        } finally {
            pool.close();
        }
    }

    private JdbcIdempotencyStore store() throws SQLException {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).tableName(table).createTableIfMissing(true)
                .build();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("ALTER TABLE " + table + " ADD CONSTRAINT " + table + "_small CHECK (result IS NULL OR"
                    + " octet_length(result) <= 64)");
        }
        return store;
    }

    private static Task<String> task(String id) {
        String result = id.startsWith("poison") ? "x".repeat(200) : "ok " + id;
        return new Task<>(IdempotencyKey.of(NAMESPACE, id), id.getBytes(StandardCharsets.UTF_8), ResultCodec.utf8(),
                ctx -> result);
    }

    @ParameterizedTest(name = "transactional: {0}")
    @ValueSource(booleans = {false, true})
    void aRefusedRecordFailsOnlyItsOwnTask(boolean transactional) throws SQLException {
        JdbcIdempotencyStore store = store();
        Idempotency.Builder builder = Idempotency.builder(store);
        try (Idempotency once = transactional ? builder.transactional().build() : builder.build()) {

            Outcome<String> alone = once.execute(task("poison-1"));
            List<Outcome<String>> batch = once.executeAll(List.of(task("a"), task("poison-2"), task("b")));

            assertThat(alone).isInstanceOfSatisfying(Outcome.Failed.class,
                    f -> assertThat(f.cause()).isInstanceOf(StoreRejectedException.class));
            assertThat(batch.get(0)).isInstanceOf(Outcome.Processed.class);
            assertThat(batch.get(1)).isInstanceOfSatisfying(Outcome.Failed.class,
                    f -> assertThat(f.cause()).isInstanceOf(StoreRejectedException.class)
                            .hasMessageContaining("SQLState 23514"));
            assertThat(batch.get(2)).isInstanceOf(Outcome.Processed.class);
            assertThat(state(store, "a")).contains(RecordState.COMPLETED);
            assertThat(state(store, "b")).contains(RecordState.COMPLETED);
            assertThat(state(store, "poison-1")).isNotEqualTo(Optional.of(RecordState.COMPLETED));
            assertThat(state(store, "poison-2")).isNotEqualTo(Optional.of(RecordState.COMPLETED));
        }
    }

    private static Optional<RecordState> state(JdbcIdempotencyStore store, String id) {
        return StoreCalls.find(store, IdempotencyKey.of(NAMESPACE, id)).map(r -> r.state());
    }
}
