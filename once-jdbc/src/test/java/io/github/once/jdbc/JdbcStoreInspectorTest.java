package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.StoreInspector;
import io.github.once.testkit.StoreInspectorContract;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The inspector contract on each database, one random table per database (dropped at the end); PostgreSQL's pool
 * hands out manual-commit connections, as a transaction manager's would.
 */
class JdbcStoreInspectorTest {

    private static final Map<TestDb, JdbcStoreContractTest.Fixture> FIXTURES = new ConcurrentHashMap<>();

    static JdbcIdempotencyStore store(TestDb db) {
        return FIXTURES.computeIfAbsent(db, k -> {
            HikariDataSource pool = db.pool("TRANSACTION_READ_COMMITTED", db != TestDb.POSTGRESQL);
            return new JdbcStoreContractTest.Fixture(pool, JdbcIdempotencyStore.builder(pool)
                    .tableName(TestDb.randomTable("once_inspect")).createTableIfMissing(true).build());
        }).store();
    }

    @AfterAll
    static void dropTables() throws Exception {
        for (JdbcStoreContractTest.Fixture f : FIXTURES.values()) {
            try (HikariDataSource pool = f.pool()) {
                TestDb.drop(pool, f.store().tableName());
            }
        }
        FIXTURES.clear();
    }

    abstract static class Variant extends StoreInspectorContract {
        abstract TestDb db();

        @Override
        protected IdempotencyStore createStore() {
            // Closing a JDBC store leaves its data source open, so the contract may close the shared one.
            return store(db());
        }

        @Override
        protected StoreInspector inspectorOf(IdempotencyStore store) {
            return store(db()).inspector();
        }

        @Test
        void tellsReleasedFromLapsed() {
            assertThat(store(db()).inspector().tellsReleasedFromLapsed()).isTrue();
        }
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
