package io.github.once.jdbc.internal;

import io.github.once.OnceException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.Lease;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The steps of one task or batch inside one database transaction. The claimed rows stay locked until the
 * transaction ends, so no lease is renewed, and a completion cannot be refused for a lapsed lease.
 */
abstract class TransactionUnit implements ExecutionScope.Unit {

    private static final Logger log = LoggerFactory.getLogger(TransactionUnit.class);

    final RecordTable table;
    final Connection connection;
    private Connection guarded;
    private boolean claimed;
    private boolean ended;

    TransactionUnit(RecordTable table, Connection connection) {
        this.table = table;
        this.connection = connection;
    }

    /** The first claim of this unit, when nothing else has run in its transaction yet. */
    abstract ClaimResult firstClaim(ClaimRequest request) throws SQLException;

    abstract void commitTransaction() throws SQLException;

    abstract void rollbackTransaction() throws SQLException;

    /** Gives back what the unit holds once its transaction has ended. */
    abstract void end();

    /** A first claim of one key may answer a lost race itself ({@link #firstClaim}); any other is one statement. */
    @Override
    public final List<ClaimResult> claim(List<ClaimRequest> requests) {
        if (!claimed && requests.size() == 1) {
            claimed = true;
            return List.of(sql("claim", true, () -> firstClaim(requests.get(0))));
        }
        claimed = true;
        return sql("claim", true, () -> table.claims.claimAll(connection, requests, true));
    }

    @Override
    public final boolean renewsLeases() {
        return false; // the uncommitted row stays locked until this transaction ends
    }

    @Override
    public final boolean atomic() {
        return true;
    }

    @Override
    public final <R> R resource(Class<R> type) {
        if (type != Connection.class) {
            return null;
        }
        if (guarded == null) {
            guarded = GuardedConnection.wrap(connection);
        }
        return type.cast(guarded);
    }

    @Override
    public final ExecutionScope.Mark mark() {
        Savepoint savepoint = sql("savepoint", false, connection::setSavepoint);
        return new ExecutionScope.Mark() {
            @Override
            public void keep() {
                act("release savepoint", () -> connection.releaseSavepoint(savepoint));
            }

            @Override
            public void undo() {
                act("rollback to savepoint", () -> connection.rollback(savepoint));
            }
        };
    }

    /**
     * The claims wrote their rows completed, and this transaction holds them until it commits with the handlers'
     * work: only a result is left to write. A batch without results costs no statement here.
     */
    @Override
    public final List<Boolean> complete(List<Completion> completions) {
        List<Completion> results = new ArrayList<>();
        for (Completion completion : completions) {
            if (completion.result() != null) {
                results.add(completion);
            }
        }
        if (results.size() == 1) {
            Completion completion = results.get(0);
            recorded(completion, sql("complete", false, () -> table.complete(connection, completion, false)));
        } else if (!results.isEmpty()) {
            List<Boolean> recorded = sql("completeAll", false, () -> table.completeAll(connection, results, false));
            for (int i = 0; i < recorded.size(); i++) {
                recorded(results.get(i), recorded.get(i));
            }
        }
        return Collections.nCopies(completions.size(), true);
    }

    /** The transaction holds the row: no one else can have changed it. */
    private static boolean recorded(Completion completion, boolean recorded) {
        if (!recorded) {
            Lease lease = completion.lease();
            throw new OnceException("the claimed row of " + lease.key() + " (token " + lease.token()
                    + ") changed inside its own transaction; was the table modified by hand?");
        }
        return true;
    }

    /** Keeps a failed task's claimed row, released: the key's token counter survives and a redelivery claims at once. */
    @Override
    public final boolean release(Lease lease) {
        return sql("release", false, () -> table.release(connection, lease, false));
    }

    @Override
    public final void commit() {
        ended = true;
        act("commit", this::commitTransaction);
    }

    @Override
    public final void rollback() {
        ended = true;
        act("rollback", this::rollbackTransaction);
    }

    @Override
    public final void close() {
        if (!ended) {
            try {
                rollbackTransaction();
            } catch (SQLException | RuntimeException e) {
                log.debug("Could not roll back an unfinished transaction", e);
            }
        }
        end();
    }

    /** Runs one step on the transaction's connection, its failure sorted as {@link #failure} says. */
    private static <R> R sql(String operation, boolean claim, Step<R> step) {
        try {
            return step.run();
        } catch (SQLException e) {
            throw failure(operation, e, claim);
        }
    }

    private static void act(String operation, Action action) {
        sql(operation, false, () -> {
            action.run();
            return null;
        });
    }

    @FunctionalInterface
    private interface Step<R> {
        R run() throws SQLException;
    }

    @FunctionalInterface
    private interface Action {
        void run() throws SQLException;
    }

    /**
     * A race loses the whole unit (its transaction rolled back, nothing kept), for the executor to run its tasks
     * one by one; so does a claim's lock wait that timed out behind another transaction.
     */
    private static RuntimeException failure(String operation, SQLException e, boolean claim) {
        RaceLost race = RaceLost.of(e, claim);
        if (race != null) {
            return new ExecutionScope.UnitLostException("transaction lost a race during " + operation + " (SQLState "
                    + e.getSQLState() + "): " + e.getMessage(), e);
        }
        return SqlErrors.translate(operation, e);
    }
}
