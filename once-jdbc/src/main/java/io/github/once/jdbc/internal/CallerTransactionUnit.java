package io.github.once.jdbc.internal;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.List;

/**
 * One task inside a transaction the caller manages, under a savepoint: "commit" keeps the task's work in the
 * caller's transaction, "rollback" undoes it back to the savepoint. The caller commits or rolls back the rest.
 */
final class CallerTransactionUnit extends TransactionUnit {

    private final Savepoint savepoint;

    CallerTransactionUnit(RecordTable table, Connection connection) throws SQLException {
        super(table, connection);
        if (connection.getAutoCommit()) {
            throw new IllegalArgumentException("the connection must be inside a transaction (autoCommit false),"
                    + " but autoCommit was true");
        }
        this.savepoint = connection.setSavepoint();
    }

    /** Inside the caller's snapshot a retry would see the same: answer from a fresh read on another connection. */
    @Override
    ClaimResult firstClaim(ClaimRequest request) throws SQLException {
        try {
            return table.claims.claimAll(connection, List.of(request), true).get(0);
        } catch (SQLException e) {
            if (RaceLost.of(e, true) == null) {
                throw e;
            }
            connection.rollback(savepoint);
            return table.inTransaction("claim", c -> table.answerNow(c, request));
        }
    }

    @Override
    void commitTransaction() throws SQLException {
        connection.releaseSavepoint(savepoint);
    }

    @Override
    void rollbackTransaction() throws SQLException {
        connection.rollback(savepoint);
    }

    @Override
    void end() {
        // The connection and its transaction are the caller's.
    }
}
