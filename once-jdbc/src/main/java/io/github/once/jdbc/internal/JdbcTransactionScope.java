package io.github.once.jdbc.internal;

import io.github.once.spi.ExecutionScope;
import io.github.once.spi.IdempotencyStore;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The store's transactional scopes ({@code JdbcIdempotencyStore.transactionScope()} and
 * {@code JdbcIdempotencyStore.joining}): each task (or batch) inside one database transaction that also writes its
 * completed record, so commit makes the effect and the record visible together, rollback neither. The handler does
 * its writes on the connection from {@code context.resource(Connection.class)}, which may not commit, roll back or
 * close the transaction.
 *
 * <p>The claim is the store's single upsert, run inside the transaction: the uncommitted row holds the key. A
 * concurrent duplicate waits on that row; when the first commits it sees the completed record and answers
 * {@code Duplicate}, and when the first rolls back it claims the key itself. The row lock is the lease, so no
 * renewal runs; a crash before commit rolls back effect and claim alike. A claim that loses a race is answered
 * from what is committed, and claimed again (in a new transaction, a bounded number of times) only when nothing
 * is; a lock wait that times out answers from what is committed, else busy for a lease by the database's clock.
 */
public final class JdbcTransactionScope implements ExecutionScope {

    private final IdempotencyStore store;
    /** The store's table, made at its first call when the database was down at build. */
    private final Supplier<RecordTable> table;
    private final String beginning;
    private final Opening opening;

    private JdbcTransactionScope(IdempotencyStore store, Supplier<RecordTable> table, String beginning, Opening opening) {
        this.store = Objects.requireNonNull(store, "store");
        this.table = table;
        this.beginning = beginning;
        this.opening = opening;
    }

    /** A transaction of its own for each task or batch, on a connection from the store's data source. */
    public static JdbcTransactionScope of(IdempotencyStore store, Supplier<RecordTable> table) {
        return new JdbcTransactionScope(store, table, "beginning a transaction",
                t -> new OwnTransactionUnit(t, Transaction.begin(t.dataSource)));
    }

    /** A scope for one task inside a transaction the caller manages on {@code connection}. */
    public static ExecutionScope joining(IdempotencyStore store, Supplier<RecordTable> table,
            Connection connection) {
        Objects.requireNonNull(connection, "connection");
        return new JdbcTransactionScope(store, table, "joining the caller's transaction",
                t -> new CallerTransactionUnit(t, connection));
    }

    @Override
    public IdempotencyStore store() {
        return store;
    }

    @Override
    public Unit begin() {
        try {
            return opening.open(table.get());
        } catch (SQLException e) {
            throw SqlErrors.translate(beginning, e);
        }
    }

    /** How a unit of this scope starts. */
    @FunctionalInterface
    private interface Opening {
        TransactionUnit open(RecordTable table) throws SQLException;
    }
}
