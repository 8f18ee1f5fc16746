package io.github.once.jdbc;

import io.github.once.Idempotency;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.IdempotencyStore;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;

/**
 * Runs each task (or batch) of an {@link Idempotency} executor inside one database transaction that also writes
 * its completed record: commit makes the effect and the record visible together, rollback neither. The handler
 * does its writes on the connection from {@code context.resource(Connection.class)}, which may not commit, roll
 * back or close the transaction.
 *
 * <p>The claim is the store's single upsert, run inside the transaction: the uncommitted row holds the key. A
 * concurrent duplicate waits on that row; when the first commits it sees the completed record and answers
 * {@code Duplicate}, and when the first rolls back it claims the key itself. The row lock is the lease, so no
 * renewal runs; a crash before commit rolls back effect and claim alike. A claim that loses a race is answered
 * from what is committed, and claimed again (in a new transaction, a bounded number of times) only when nothing
 * is; a lock wait that times out answers from what is committed, else busy for a lease by the database's clock.
 *
 * <pre>{@code
 * Idempotency once = JdbcTransactionScope.executor(store).build();
 * Outcome<String> outcome = once.execute(IdempotencyKey.of("payments", messageId), body, ResultCodec.utf8(), ctx -> {
 *     Connection c = ctx.resource(Connection.class);
 *     try (PreparedStatement ps = c.prepareStatement("UPDATE account SET balance = balance - ? WHERE id = ?")) { ... }
 *     return "charged";
 * });
 * // inside a transaction of your own (auto-commit off): Once neither commits nor rolls it back
 * once.execute(JdbcTransactionScope.joining(store, connection), task);
 * }</pre>
 */
public final class JdbcTransactionScope implements ExecutionScope {

    private final JdbcIdempotencyStore store;
    private final RecordTable table;
    private final String beginning;
    private final Opening opening;

    private JdbcTransactionScope(JdbcIdempotencyStore store, String beginning, Opening opening) {
        this.store = Objects.requireNonNull(store, "store");
        this.table = store.table();
        this.beginning = beginning;
        this.opening = opening;
    }

    /** A transaction of its own for each task or batch, on a connection from the store's data source. */
    public static JdbcTransactionScope of(JdbcIdempotencyStore store) {
        return new JdbcTransactionScope(store, "beginning a transaction",
                table -> new OwnTransactionUnit(table, Transaction.begin(table.dataSource)));
    }

    /** An executor builder over {@code store} with this scope: {@code Idempotency.builder(store).scope(of(store))}. */
    public static Idempotency.Builder executor(JdbcIdempotencyStore store) {
        return Idempotency.builder(store).scope(of(store));
    }

    /**
     * A scope for one task inside a transaction the caller manages, for {@link Idempotency#execute(ExecutionScope,
     * io.github.once.Task)}: Once neither commits, rolls back, nor changes auto-commit on {@code connection}. The
     * claim, the handler's effect and the completed record become visible when the caller commits, and vanish if
     * the caller rolls back. Everything the task does sits under one savepoint: a failing handler (or a key that is
     * not acquired) is rolled back to it, so the caller's earlier work survives. {@code Processed} here means
     * "recorded in your transaction": it holds once the caller commits. A claim that loses a race is answered
     * from a fresh read on another connection (inside the caller's snapshot a retry would see the same).
     *
     * <p>Running a task in it throws {@link IllegalArgumentException} when the connection is in auto-commit mode
     * (there is no transaction to join).
     */
    public static ExecutionScope joining(JdbcIdempotencyStore store, Connection connection) {
        Objects.requireNonNull(connection, "connection");
        return new JdbcTransactionScope(store, "joining the caller's transaction",
                table -> new CallerTransactionUnit(table, connection));
    }

    @Override
    public IdempotencyStore store() {
        return store;
    }

    @Override
    public Unit begin() {
        try {
            return opening.open(table);
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
