package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.RecordState;
import io.github.once.ResultCodec;
import io.github.once.Task;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * On PostgreSQL, with the record in a step of its own and in one transaction with the handler: a codec that throws
 * is a {@code Failed} outcome in both modes, and neither a failure nor anything escaping a batch leaves a key busy
 * (released in the first mode, rolled back in the second).
 */
class BothModesGiveBackKeysTest {

    private static HikariDataSource pool;
    private static JdbcIdempotencyStore store;

    enum Mode {
        SEPARATE_RECORD, TRANSACTIONAL;

        Idempotency executor() {
            IdempotencyConfig config = IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(30)).build();
            return this == TRANSACTIONAL ? Idempotency.builder(store).config(config).transactional().build()
                    : Idempotency.builder(store).config(config).build();
        }
    }

    private static final ResultCodec<String> REFUSES_V1 = new ResultCodec<>() {
        @Override
        public byte[] encode(String value) {
            if (value.startsWith("v1:")) {
                throw new IllegalArgumentException("cannot write format v1");
            }
            return value.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            String text = new String(bytes, StandardCharsets.UTF_8);
            if (text.startsWith("v1:")) {
                throw new IllegalArgumentException("cannot read format v1");
            }
            return text;
        }
    };

    private final String namespace = "modes" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);

    @BeforeAll
    static void createTable() {
        pool = TestDb.POSTGRESQL.pool("TRANSACTION_READ_COMMITTED", true);
        store = JdbcIdempotencyStore.builder(pool).tableName(TestDb.randomTable("once_modes"))
                .createTableIfMissing(true).build();
    }

    @AfterAll
    static void dropTable() throws Exception {
        try (HikariDataSource p = pool) {
            TestDb.drop(p, store.tableName());
        }
    }

    private IdempotencyKey key(String id) {
        return IdempotencyKey.of(namespace, id);
    }

    private Task<String> task(String id, io.github.once.Handler<String> handler) {
        return new Task<>(key(id), null, REFUSES_V1, handler);
    }

    /** What another consumer's claim answers now, long before any 30 s lease of the executor could lapse. */
    private ClaimResult claimNow(String id) {
        return StoreCalls.claim(store, new ClaimRequest(key(id), null, Duration.ofSeconds(30), Duration.ofHours(1)));
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aResultThatCannotBeEncodedFailsAndGivesTheKeyBack(Mode mode) {
        try (Idempotency once = mode.executor()) {
            Outcome<String> outcome = once.execute(task("enc", ctx -> "v1:receipt"));

            assertThat(outcome).isInstanceOf(Outcome.Failed.class);
            assertThat(((Outcome.Failed<String>) outcome).cause()).hasMessage("cannot write format v1");
            assertThat(claimNow("enc")).isInstanceOf(ClaimResult.Acquired.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void aLaterDuplicateThatCannotBeDecodedFailsAloneInABatch(Mode mode) {
        Lease old = ((ClaimResult.Acquired) claimNow("old")).lease();
        assertThat(StoreCalls.complete(store, old, "v1:receipt".getBytes(StandardCharsets.UTF_8), Duration.ofHours(1))).isTrue();
        try (Idempotency once = mode.executor()) {
            List<Outcome<String>> outcomes = once.executeAll(List.of(task("new", ctx -> "v2:receipt"),
                    task("old", ctx -> "never")));

            assertThat(outcomes.get(0)).isInstanceOf(Outcome.Processed.class);
            assertThat(outcomes.get(1)).isInstanceOf(Outcome.Failed.class);
            assertThat(((Outcome.Failed<String>) outcomes.get(1)).cause()).hasMessage("cannot read format v1");
            assertThat(StoreCalls.find(store, key("new")).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
            assertThat(claimNow("new")).isInstanceOf(ClaimResult.Duplicate.class);
        }
    }

    @ParameterizedTest
    @EnumSource(Mode.class)
    void anErrorFromALaterHandlerLeavesNoKeyBusy(Mode mode) {
        Error fatal = new Error("out of memory, say");
        try (Idempotency once = mode.executor()) {
            assertThatThrownBy(() -> once.executeAll(List.of(task("first", ctx -> "r1"), task("second", ctx -> {
                throw fatal;
            })))).isSameAs(fatal);
        }

        assertThat(claimNow("first")).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(claimNow("second")).isInstanceOf(ClaimResult.Acquired.class);
    }
}
