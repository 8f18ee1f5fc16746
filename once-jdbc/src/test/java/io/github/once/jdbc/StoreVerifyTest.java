package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;

import io.github.once.IdempotencyKey;
import io.github.once.StoreMisconfiguredException;
import io.github.once.StoreUnavailableException;
import io.github.once.jdbc.internal.SqlErrors;
import io.github.once.spi.ClaimRequest;
import io.github.once.testkit.StoreCalls;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The JDBC store's start-up check on the real PostgreSQL: a missing table or column fails {@code verify()} with the
 * script to run; a table made by the script passes; and a setup mistake met later (the table dropped under a
 * running store) is a {@link StoreMisconfiguredException}, not an outage to wait out.
 */
class StoreVerifyTest {

    private final HikariDataSource pool = TestDb.POSTGRESQL.pool("TRANSACTION_READ_COMMITTED", true);
    private final String table = TestDb.randomTable("once_verify");

    @AfterEach
    void dropTable() throws SQLException {
        try {
            TestDb.drop(pool, table);
        } finally {
            pool.close();
        }
    }

    private JdbcIdempotencyStore store() {
        return JdbcIdempotencyStore.builder(pool).tableName(table).build();
    }

    @Test
    void aMissingTableNamesTheSchemaScriptAndTheDemoSetting() {
        assertThatThrownBy(() -> store().verify())
                .isInstanceOf(StoreMisconfiguredException.class)
                .hasMessageContaining("'" + table + "'")
                .hasMessageContaining("db/once/postgresql/V1__once_record.sql")
                .hasMessageContaining("createTableIfMissing(true)");
    }

    @Test
    void aTableWithoutAColumnOnceUsesNamesTheColumn() throws SQLException {
        JdbcIdempotencyStore.builder(pool).tableName(table).createTableIfMissing(true).build();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("ALTER TABLE " + table + " DROP COLUMN claim_id");
        }
        assertThatThrownBy(() -> store().verify())
                .isInstanceOf(StoreMisconfiguredException.class)
                .hasMessageContaining("lacks the column(s) claim_id")
                .hasMessageContaining("db/once/postgresql/V1__once_record.sql");
    }

    @Test
    void aTableMadeByTheFirstScriptAloneNamesTheSecond() throws SQLException {
        JdbcIdempotencyStore.builder(pool).tableName(table).createTableIfMissing(true).build();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            st.execute("ALTER TABLE " + table + " DROP COLUMN takeovers"); // as V1 alone left it
        }
        assertThatThrownBy(() -> store().verify())
                .isInstanceOf(StoreMisconfiguredException.class)
                .hasMessageContaining("lacks the column(s) takeovers. Apply db/once/postgresql/V2__once_takeovers.sql");
    }

    @Test
    void aMissingTableNamesEveryScript() {
        assertThatThrownBy(() -> store().verify())
                .hasMessageContaining("db/once/postgresql/V1__once_record.sql then db/once/postgresql/V2__once_takeovers.sql");
    }

    @Test
    void aTableMadeByTheScriptPasses() {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).tableName(table).createTableIfMissing(true)
                .build();
        assertThatCode(store::verify).doesNotThrowAnyException();
        assertThat(store.toString()).isEqualTo("JdbcIdempotencyStore[postgresql, table " + table + "]");
    }

    @Test
    void aTableDroppedUnderARunningStoreIsMisconfiguredNotUnavailable() {
        JdbcIdempotencyStore store = store(); // no table: what a first delivery met before the check existed
        ClaimRequest request = new ClaimRequest(IdempotencyKey.of("verify", "1"), null, Duration.ofSeconds(30),
                Duration.ofHours(1));
        assertThatThrownBy(() -> StoreCalls.claim(store, request))
                .isInstanceOf(StoreMisconfiguredException.class)
                .isNotInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("SQLState 42P01")
                .hasMessageContaining("V1__once_record.sql");
    }

    @ParameterizedTest
    @CsvSource({
            "42P01, 0, true, the record table does not exist",
            "42S02, 1146, true, the record table does not exist",
            "42703, 0, true, lacks a column",
            "42501, 0, true, lacks a permission",
            "28P01, 0, true, refused the credentials",
            "3D000, 0, true, database or schema does not exist",
            "08001, 0, false, ''",
            "40001, 0, false, ''",
            "23502, 0, false, ''"})
    void sqlStatesThatWaitingWillNotHealAreMisconfigured(String state, int code, boolean misconfigured, String fix) {
        SQLException e = new SQLException("boom", state, code);
        assertThat(SqlErrors.isMisconfigured(e)).isEqualTo(misconfigured);
        if (misconfigured) {
            assertThat(SqlErrors.translate("claim", e)).isInstanceOf(StoreMisconfiguredException.class)
                    .hasMessageContaining(fix);
        } else {
            assertThat(SqlErrors.translate("claim", e)).isNotInstanceOf(StoreMisconfiguredException.class);
        }
    }

    @Test
    void statementsBesideTheStoreAreSortedByTheStoresRules() throws SQLException {
        // A statement on a table that does not exist, on the real PostgreSQL: a setup mistake.
        SQLException missing;
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            missing = catchThrowableOfType(
                    () -> st.executeQuery("SELECT 1 FROM " + table), SQLException.class);
        }
        assertThat(JdbcDialect.translate("outbox claim", missing))
                .isInstanceOf(StoreMisconfiguredException.class)
                .hasMessageStartingWith("outbox claim was refused (SQLState 42P01")
                .hasMessageContaining("a table does not exist");
        // A database nobody listens for: unavailable, worth waiting for.
        SQLException refused = catchThrowableOfType(
                () -> DriverManager.getConnection("jdbc:postgresql://127.0.0.1:1/test", "postgres", ""),
                SQLException.class);
        assertThat(JdbcDialect.translate("outbox claim", refused))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageStartingWith("outbox claim failed, the database is unavailable (SQLState 08001");
        assertThat(JdbcDialect.translate("outbox claim", new SQLException("boom", "23502", 0)))
                .isNotInstanceOf(StoreMisconfiguredException.class).isNotInstanceOf(StoreUnavailableException.class)
                .hasMessage("outbox claim failed (SQLState 23502, error 0): boom");
    }
}
