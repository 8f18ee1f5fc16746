package io.github.once.spi;

import java.sql.Connection;

/**
 * A store whose records live in a database the handler can write to, so that the record and the handler's own
 * writes commit together or not at all (once-jdbc's store). Callers look for it once, by type:
 * {@link io.github.once.Idempotency.Builder#transactional()} uses {@link #transactionScope()}, and a listener
 * container that manages its own transactions (Spring's) uses {@link #joining(Connection)}.
 */
public interface TransactionalStore extends IdempotencyStore {

    /**
     * A scope whose units are transactions of their own, one per task or batch: the claim, the handler's writes on
     * the connection it gets ({@code context.resource(Connection.class)}) and the completion commit together.
     */
    ExecutionScope transactionScope();

    /**
     * A scope for one task inside a transaction the caller manages on {@code connection} (auto-commit off): Once
     * neither commits, rolls back, nor closes it. The claim, the handler's effect and the record become visible
     * when the caller commits and vanish if it rolls back; a failing handler is rolled back to a savepoint, so the
     * caller's earlier work survives.
     */
    ExecutionScope joining(Connection connection);
}
