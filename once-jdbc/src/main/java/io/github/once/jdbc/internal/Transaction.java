package io.github.once.jdbc.internal;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transaction on a pooled connection: begins it (auto-commit off), commits or rolls back, and gives the
 * connection back as it was. What is neither committed nor rolled back when it closes is rolled back.
 *
 * <p>{@link #runAutoCommitted} is the other shape, for steps that need no transaction around their statements:
 * on a connection the pool hands out in auto-commit mode (the default) each statement commits on its own, so a
 * one-statement step costs one round trip and no COMMIT after it; a connection in manual-commit mode (a pool set
 * up for a transaction manager) runs the work as one transaction, as {@link #run} does.
 */
public final class Transaction implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Transaction.class);

    private final Connection connection;
    /** Auto-commit was switched off for this transaction: switch it back on when it ends. */
    private final boolean restoreAutoCommit;
    /** Auto-commit stays on: every statement committed on its own, so there is nothing to commit or roll back. */
    private final boolean committedByStatements;
    private boolean ended;

    private Transaction(Connection connection, boolean restoreAutoCommit, boolean committedByStatements) {
        this.connection = connection;
        this.restoreAutoCommit = restoreAutoCommit;
        this.committedByStatements = committedByStatements;
    }

    static Transaction begin(DataSource dataSource) throws SQLException {
        return begin(dataSource, false);
    }

    private static Transaction begin(DataSource dataSource, boolean keepAutoCommit) throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit && !keepAutoCommit) {
                c.setAutoCommit(false);
            }
            return new Transaction(c, autoCommit && !keepAutoCommit, autoCommit && keepAutoCommit);
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /**
     * Runs {@code work} in a transaction of its own and commits. A lost race surfaces as {@link RaceLost} (the
     * transaction rolled back) for the caller to try again; other failures as the store's exceptions.
     */
    static <R> R run(DataSource dataSource, String operation, Work<R> work) {
        return run(dataSource, operation, work, false);
    }

    /**
     * Runs {@code work} in the commit mode the pool gave its connection: statement by statement in auto-commit
     * mode, else as one transaction. A lost race surfaces as {@link RaceLost}: the statement that lost it was
     * rolled back whole (in auto-commit mode, only that statement), so {@code work} must either be one statement
     * or answer the races of its writing statements itself.
     */
    static <R> R runAutoCommitted(DataSource dataSource, String operation, Work<R> work) {
        return run(dataSource, operation, work, true);
    }

    private static <R> R run(DataSource dataSource, String operation, Work<R> work, boolean keepAutoCommit) {
        try (Transaction tx = begin(dataSource, keepAutoCommit)) {
            R result = work.run(tx.connection);
            tx.commit();
            return result;
        } catch (SQLException e) {
            if (SqlErrors.isRace(e)) {
                throw RaceLost.race(e);
            }
            throw SqlErrors.translate(operation, e);
        }
    }

    Connection connection() {
        return connection;
    }

    void commit() throws SQLException {
        if (!committedByStatements) {
            connection.commit();
        }
        ended = true;
    }

    void rollback() throws SQLException {
        ended = true;
        if (!committedByStatements) {
            connection.rollback();
        }
    }

    @Override
    public void close() {
        try {
            if (!ended && !committedByStatements) {
                connection.rollback();
            }
            if (restoreAutoCommit) {
                connection.setAutoCommit(true);
            }
        } catch (SQLException | RuntimeException e) {
            log.debug("Could not end the transaction cleanly; the pool will discard the connection", e);
        } finally {
            try {
                connection.close();
            } catch (SQLException e) {
                log.debug("Could not give the connection back", e);
            }
        }
    }

    /** Statements on a connection whose transaction someone else ends. */
    @FunctionalInterface
    public interface Work<R> {
        R run(Connection c) throws SQLException;
    }
}
