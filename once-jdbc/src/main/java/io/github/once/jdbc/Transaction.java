package io.github.once.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One transaction on a pooled connection: begins it (auto-commit off), commits or rolls back, and gives the
 * connection back as it was. What is neither committed nor rolled back when it closes is rolled back.
 */
final class Transaction implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Transaction.class);

    private final Connection connection;
    private final boolean autoCommit;
    private boolean ended;

    private Transaction(Connection connection, boolean autoCommit) {
        this.connection = connection;
        this.autoCommit = autoCommit;
    }

    static Transaction begin(DataSource dataSource) throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            boolean autoCommit = c.getAutoCommit();
            if (autoCommit) {
                c.setAutoCommit(false);
            }
            return new Transaction(c, autoCommit);
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
        try (Transaction tx = begin(dataSource)) {
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
        connection.commit();
        ended = true;
    }

    void rollback() throws SQLException {
        ended = true;
        connection.rollback();
    }

    @Override
    public void close() {
        try {
            if (!ended) {
                connection.rollback();
            }
            if (autoCommit) {
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
    interface Work<R> {
        R run(Connection c) throws SQLException;
    }
}
