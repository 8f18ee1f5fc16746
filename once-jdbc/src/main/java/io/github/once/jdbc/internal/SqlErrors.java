package io.github.once.jdbc.internal;

import io.github.once.OnceException;
import io.github.once.StoreMisconfiguredException;
import io.github.once.StoreRejectedException;
import io.github.once.StoreUnavailableException;
import io.github.once.jdbc.JdbcDialect;
import io.github.once.jdbc.JdbcIdempotencyStore;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.util.Locale;
import java.util.Set;

/**
 * Sorts SQL failures: the store unreachable, a race another attempt resolves, a record the database refuses
 * (data exception or constraint), a setup mistake that waiting will not heal (a missing table or column, a missing
 * permission, refused credentials), or another error.
 */
public final class SqlErrors {

    /** Serialization failure and deadlock (all three), PostgreSQL lock_not_available, H2 duplicate key in MERGE. */
    private static final Set<String> RACE_STATES = Set.of("40001", "40P01", "55P03", "23505", "HYT00");
    /** MariaDB lock wait timeout and deadlock; H2 lock timeout, deadlock and concurrent update. */
    private static final Set<Integer> RACE_CODES = Set.of(1205, 1213, 50200, 40001, 90131);
    /** PostgreSQL query_canceled (a query timeout), admin or crash shutdown; MariaDB interrupted. */
    private static final Set<String> UNAVAILABLE_STATES = Set.of("57014", "57P01", "57P02", "57P03", "70100");
    /** Undefined column: PostgreSQL, MariaDB, H2. */
    private static final Set<String> MISSING_COLUMN_STATES = Set.of("42703", "42S22", "42122");

    private SqlErrors() {
    }

    /**
     * SQLState classes 42 (syntax error or access rule violation: undefined table or column, insufficient
     * privilege), 28 (invalid authorization), 3D (invalid catalog) and 3F (invalid schema).
     */
    public static boolean isMisconfigured(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("42") || state.startsWith("28") || state.startsWith("3D")
                || state.startsWith("3F"));
    }

    /** What to do about a setup mistake, by its SQLState. */
    public static String fix(SQLException e) {
        String state = e.getSQLState();
        if ("42P01".equals(state) || "42S02".equals(state) || e.getErrorCode() == 1146) {
            return "the record table does not exist: run the schema scripts db/once/<postgresql|mariadb|h2>/"
                    + "V1__once_record.sql and V2__once_takeovers.sql from once-jdbc with your migrations, or set"
                    + " createTableIfMissing(true)"
                    + " on JdbcIdempotencyStore.builder for a demo";
        }
        if ("42703".equals(state) || "42S22".equals(state) || e.getErrorCode() == 1054) {
            return "the record table lacks a column Once uses: compare it with the schema scripts"
                    + " db/once/<postgresql|mariadb|h2>/V1__once_record.sql and V2__once_takeovers.sql from once-jdbc";
        }
        if ("42501".equals(state) || e.getErrorCode() == 1142) {
            return "the database user lacks a permission: grant it SELECT, INSERT, UPDATE and DELETE on the record"
                    + " table";
        }
        if (state != null && (state.startsWith("28") || state.startsWith("3D") || state.startsWith("3F"))) {
            return credentialsOrCatalogFix(state);
        }
        return "the statement was refused; check the table against the schema script"
                + " db/once/<postgresql|mariadb|h2>/V1__once_record.sql and the dialect setting";
    }

    public static boolean isUnavailable(SQLException e) {
        if (e instanceof SQLTransientConnectionException || e instanceof SQLNonTransientConnectionException
                || e instanceof SQLRecoverableException || e instanceof SQLTimeoutException) {
            return true;
        }
        String state = e.getSQLState();
        return state != null && (state.startsWith("08") || UNAVAILABLE_STATES.contains(state));
    }

    /** A lost race or a lock wait: another statement holds or just changed the row. */
    public static boolean isRace(SQLException e) {
        if (isUnavailable(e) && !(e instanceof SQLTimeoutException)) {
            return false;
        }
        return RACE_STATES.contains(e.getSQLState()) || RACE_CODES.contains(e.getErrorCode());
    }

    /** The database broke a deadlock by aborting this statement's transaction (PostgreSQL, MariaDB, H2). */
    public static boolean isDeadlock(SQLException e) {
        return "40P01".equals(e.getSQLState()) || e.getErrorCode() == 1213 || e.getErrorCode() == 40001;
    }

    /** A timeout while a statement waited: a lock held by a long transaction, or a slow store. */
    public static boolean isTimeout(SQLException e) {
        return e instanceof SQLTimeoutException || "57014".equals(e.getSQLState()) || "70100".equals(e.getSQLState());
    }

    /**
     * SQLState class 22 (data exception: a value too long, out of range) or 23 (integrity constraint) on a
     * record's own statement: this record fails the same way every time. A duplicate key in a claim is a race
     * ({@link #isRace}), sorted out before.
     */
    public static boolean isRejected(SQLException e) {
        String state = e.getSQLState();
        return state != null && (state.startsWith("22") || state.startsWith("23")) && !isRace(e);
    }

    /** A failure of a statement other than the store's own (see {@code JdbcDialect.translate}). */
    public static OnceException translateStatement(String operation, SQLException e) {
        String detail = " (SQLState " + e.getSQLState() + ", error " + e.getErrorCode() + "): " + e.getMessage();
        if (isUnavailable(e)) {
            return new StoreUnavailableException(operation + " failed, the database is unavailable" + detail, e);
        }
        if (isMisconfigured(e)) {
            return new StoreMisconfiguredException(operation + " was refused" + detail + ". Fix: " + setupFix(e)
                    + ". Waiting will not help.", e);
        }
        return new OnceException(operation + " failed" + detail, e);
    }

    /** What to do about a setup mistake on any table, by its SQLState. */
    private static String setupFix(SQLException e) {
        String state = e.getSQLState();
        if ("42P01".equals(state) || "42S02".equals(state) || e.getErrorCode() == 1146) {
            return "a table does not exist: create it from its schema script";
        }
        if (MISSING_COLUMN_STATES.contains(state) || e.getErrorCode() == 1054) {
            return "a table lacks a column: compare it with its schema script";
        }
        if ("42501".equals(state) || e.getErrorCode() == 1142) {
            return "the database user lacks a permission on the table";
        }
        return credentialsOrCatalogFix(state);
    }

    private static String credentialsOrCatalogFix(String state) {
        if (state != null && state.startsWith("28")) {
            // 28000 is also PostgreSQL's answer when pg_hba.conf has no entry, e.g. a hostssl-only server.
            return "the database refused the credentials: check the data source's user and password, and that the"
                    + " connection uses TLS where the server requires it (PostgreSQL: sslmode in the URL)";
        }
        if (state != null && (state.startsWith("3D") || state.startsWith("3F"))) {
            return "the database or schema does not exist: check the data source's URL";
        }
        return "the statement was refused; check the table against its schema script and the dialect setting";
    }

    public static OnceException translate(String operation, SQLException e) {
        if (MISSING_COLUMN_STATES.contains(e.getSQLState()) && String.valueOf(e.getMessage())
                .toLowerCase(Locale.ROOT).contains("takeovers")) {
            return new StoreMisconfiguredException("JDBC store failed during " + operation + ": the record table has no column"
                    + " takeovers; apply migration V2__once_takeovers.sql (see JdbcDialect.migrationResources()),"
                    + " or build the store with createTableIfMissing(true), which adds it", e);
        }
        if (isMisconfigured(e)) {
            return new StoreMisconfiguredException("JDBC store refused " + operation + " (SQLState " + e.getSQLState()
                    + "): " + e.getMessage() + ". Fix: " + fix(e) + ". Waiting will not help.", e);
        }
        if (isUnavailable(e)) {
            return new StoreUnavailableException("JDBC store unavailable during " + operation + " (SQLState "
                    + e.getSQLState() + "): " + e.getMessage(), e);
        }
        if (isRejected(e)) {
            return new StoreRejectedException("JDBC store refused the record during " + operation + " (SQLState "
                    + e.getSQLState() + ", error " + e.getErrorCode() + "): " + e.getMessage(), null, e);
        }
        return new OnceException("JDBC store failed during " + operation + " (SQLState " + e.getSQLState()
                + ", error " + e.getErrorCode() + "): " + e.getMessage(), e);
    }
}
