package io.github.once;

import io.github.once.internal.HandlerContext;
import io.github.once.spi.Lease;

/** What a handler knows about the execution it runs in. */
public interface ExecutionContext {

    IdempotencyKey key();

    /** The fencing token of this execution's lease; pass it to downstream systems that can check it. */
    long fencingToken();

    /** Whether the lease is still held as far as this process knows (renewal has not been refused). */
    boolean leaseHeld();

    /**
     * A resource of the execution's scope, such as the JDBC {@code java.sql.Connection} of once-jdbc's
     * transactional scope.
     *
     * @throws IllegalStateException when this execution provides no such resource
     */
    <R> R resource(Class<R> type);

    /** A context with no resources, for handlers that run outside any transaction. */
    static ExecutionContext of(Lease lease, java.util.function.BooleanSupplier leaseHeld) {
        return new HandlerContext(lease, leaseHeld, type -> null);
    }
}
