package io.github.once.outbox.internal;

import io.github.once.OnceException;
import io.github.once.StoreUnavailableException;

import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;

/** Turns SQL failures into Once's exceptions: the database unreachable, or a real error. */
final class SqlFailures {

    private SqlFailures() {
    }

    static OnceException translate(String operation, SQLException e) {
        String state = e.getSQLState();
        boolean unavailable = e instanceof SQLTransientConnectionException
                || e instanceof SQLNonTransientConnectionException || e instanceof SQLRecoverableException
                || (state != null && state.startsWith("08"));
        String message = "outbox " + operation + " failed (SQLState " + state + ", error " + e.getErrorCode() + "): "
                + e.getMessage();
        return unavailable ? new StoreUnavailableException(message, e) : new OnceException(message, e);
    }
}
