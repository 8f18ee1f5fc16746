package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;

import io.github.once.IdempotencyKey;
import io.github.once.OnceException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.testkit.StoreCalls;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A table made by V1 alone (before the takeovers column) is not used silently: claims fail with a message naming the
 * V2 migration; {@code createTableIfMissing} brings such a table up to date, keeping its rows.
 */
class TakeoversMigrationTest {

    private static final ClaimRequest CLAIM = new ClaimRequest(IdempotencyKey.of("mig", "k-1"), "fp",
            Duration.ofMinutes(1), Duration.ofMinutes(5));

    @ParameterizedTest
    @EnumSource(TestDb.class)
    void aVersionOneTableFailsClearlyUntilMigrated(TestDb db) throws Exception {
        String table = TestDb.randomTable("once_v1");
        try (HikariDataSource pool = db.pool("TRANSACTION_READ_COMMITTED", true)) {
            try {
                createVersionOne(pool, db.dialect, table);
                JdbcIdempotencyStore old = JdbcIdempotencyStore.builder(pool).dialect(db.dialect).tableName(table)
                        .build();
                assertThatThrownBy(() -> StoreCalls.claim(old, CLAIM)).isInstanceOf(OnceException.class)
                        .hasMessageContaining("V2__once_takeovers.sql");

                JdbcIdempotencyStore migrated = JdbcIdempotencyStore.builder(pool).dialect(db.dialect)
                        .tableName(table).createTableIfMissing(true).build();
                assertThat(StoreCalls.claim(migrated, CLAIM)).isInstanceOfSatisfying(ClaimResult.Acquired.class,
                        a -> assertThat(a.takeovers()).isZero());
                // Running the scripts again changes nothing.
                JdbcIdempotencyStore.builder(pool).dialect(db.dialect).tableName(table).createTableIfMissing(true)
                        .build();
                assertThat(StoreCalls.claim(migrated, CLAIM)).isInstanceOf(ClaimResult.Busy.class);
            } finally {
                TestDb.drop(pool, table);
            }
        }
    }

    private static void createVersionOne(HikariDataSource pool, JdbcDialect dialect, String table) throws Exception {
        String script;
        try (InputStream in = TakeoversMigrationTest.class.getClassLoader()
                .getResourceAsStream(dialect.schemaResource())) {
            script = new String(in.readAllBytes(), StandardCharsets.UTF_8).replace("once_record", table);
        }
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            for (String statement : script.split(";\\s*(\\n|$)")) {
                String trimmed = statement.replaceAll("(?m)^--.*$", "").trim();
                if (!trimmed.isEmpty()) {
                    st.execute(trimmed);
                }
            }
        }
    }
}
