package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.once.spi.IdempotencyStore;
import io.github.once.testkit.IdempotencyStoreContract;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The store contract on each database, under each isolation level: auto-commit READ COMMITTED statements, and
 * REPEATABLE READ with the pool handing out connections in manual-commit mode (as a transaction manager would).
 * Each variant gets a fresh random table, dropped at the end.
 */
class JdbcStoreContractTest {

    private static final Map<String, Fixture> FIXTURES = new ConcurrentHashMap<>();

    record Fixture(HikariDataSource pool, JdbcIdempotencyStore store) {
    }

    static JdbcIdempotencyStore store(TestDb db, String isolation, boolean autoCommit) {
        return FIXTURES.computeIfAbsent(db + "/" + isolation + "/" + autoCommit, k -> {
            HikariDataSource pool = db.pool(isolation, autoCommit);
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool)
                    .tableName(TestDb.randomTable("once_contract"))
                    .createTableIfMissing(true)
                    .build();
            return new Fixture(pool, store);
        }).store();
    }

    @AfterAll
    static void dropTables() throws Exception {
        List<Exception> failures = new ArrayList<>();
        for (Fixture f : FIXTURES.values()) {
            f.store().close();
            try (HikariDataSource pool = f.pool()) {
                TestDb.drop(pool, f.store().tableName());
            } catch (Exception e) {
                failures.add(e);
            }
        }
        FIXTURES.clear();
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }

    abstract static class Variant extends IdempotencyStoreContract {
        abstract TestDb db();

        abstract String isolation();

        abstract boolean autoCommit();

        @Override
        protected IdempotencyStore createStore() {
            // The store itself: every call of the SPI is the JDBC store's own. Closing it (after each test) holds
            // nothing and leaves the shared pool open.
            return store(db(), isolation(), autoCommit());
        }

        /** The same dialect over a data source where nothing listens: every call fails with StoreUnavailableException. */
        @Override
        protected IdempotencyStore createFailingStore() {
            return JdbcIdempotencyStore.builder(db().unreachable()).dialect(db().dialect)
                    .tableName("once_unreachable").build();
        }

        @Override
        protected int fuzzRounds() {
            return 1;
        }
    }

    @Nested
    @DisplayName("PostgreSQL, READ COMMITTED, auto-commit")
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock("JdbcStoreContractTest.PostgresReadCommitted")
    class PostgresReadCommitted extends Variant {
        TestDb db() { return TestDb.POSTGRESQL; }
        String isolation() { return "TRANSACTION_READ_COMMITTED"; }
        boolean autoCommit() { return true; }
    }

    @Nested
    @DisplayName("PostgreSQL, REPEATABLE READ, manual commit")
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock("JdbcStoreContractTest.PostgresRepeatableRead")
    class PostgresRepeatableRead extends Variant {
        TestDb db() { return TestDb.POSTGRESQL; }
        String isolation() { return "TRANSACTION_REPEATABLE_READ"; }
        boolean autoCommit() { return false; }
    }

    @Nested
    @DisplayName("MariaDB, REPEATABLE READ, auto-commit")
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock("JdbcStoreContractTest.MariaDbRepeatableRead")
    class MariaDbRepeatableRead extends Variant {
        TestDb db() { return TestDb.MARIADB; }
        String isolation() { return "TRANSACTION_REPEATABLE_READ"; }
        boolean autoCommit() { return true; }
    }

    @Nested
    @DisplayName("MariaDB, READ COMMITTED, manual commit")
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock("JdbcStoreContractTest.MariaDbReadCommitted")
    class MariaDbReadCommitted extends Variant {
        TestDb db() { return TestDb.MARIADB; }
        String isolation() { return "TRANSACTION_READ_COMMITTED"; }
        boolean autoCommit() { return false; }
    }

    @Nested
    @DisplayName("H2, READ COMMITTED, auto-commit")
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock("JdbcStoreContractTest.H2ReadCommitted")
    class H2ReadCommitted extends Variant {
        TestDb db() { return TestDb.H2; }
        String isolation() { return "TRANSACTION_READ_COMMITTED"; }
        boolean autoCommit() { return true; }
    }

    @Nested
    @DisplayName("H2, REPEATABLE READ, manual commit")
    @Execution(ExecutionMode.CONCURRENT)
    @ResourceLock("JdbcStoreContractTest.H2RepeatableRead")
    class H2RepeatableRead extends Variant {
        TestDb db() { return TestDb.H2; }
        String isolation() { return "TRANSACTION_REPEATABLE_READ"; }
        boolean autoCommit() { return false; }
    }

}
