package io.github.once.jdbc.internal;

import io.github.once.OnceException;

import java.sql.SQLException;

/**
 * A statement lost a race with another transaction (a deadlock, a serialization failure) or timed out waiting for a
 * row another transaction holds. Its transaction is rolled back; a new one may answer.
 */
public final class RaceLost extends OnceException {
    public final SQLException sqlException;
    final boolean timedOut;

    private RaceLost(SQLException e, boolean timedOut) {
        super("lost a race (SQLState " + e.getSQLState() + "): " + e.getMessage(), e);
        this.sqlException = e;
        this.timedOut = timedOut;
    }

    /** A lost race. */
    static RaceLost race(SQLException e) {
        return new RaceLost(e, false);
    }

    /**
     * What {@code e} stands for, or null when it is another failure. A statement timeout counts as a lock wait
     * only when {@code lockWaits} (inside a transaction around a handler, a long handler elsewhere holds the row).
     */
    static RaceLost of(SQLException e, boolean lockWaits) {
        if (SqlErrors.isRace(e)) {
            return new RaceLost(e, false);
        }
        return lockWaits && SqlErrors.isTimeout(e) ? new RaceLost(e, true) : null;
    }
}
