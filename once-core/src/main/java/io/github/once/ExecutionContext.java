package io.github.once;

import io.github.once.spi.Lease;

/** What a handler knows about the execution it runs in. */
public interface ExecutionContext {

    IdempotencyKey key();

    /** The fencing token of this execution's lease; pass it to downstream systems that can check it. */
    long fencingToken();

    /** Whether the lease is still held as far as this process knows (renewal has not been refused). */
    boolean leaseHeld();

    /**
     * A resource the executor provides, such as the JDBC {@code java.sql.Connection} of a transactional
     * executor.
     *
     * @throws IllegalStateException when this executor provides no such resource
     */
    <R> R resource(Class<R> type);

    /** A context with no resources, for executors that run the handler outside any transaction. */
    static ExecutionContext of(Lease lease, java.util.function.BooleanSupplier leaseHeld) {
        return new ExecutionContext() {
            @Override
            public IdempotencyKey key() {
                return lease.key();
            }

            @Override
            public long fencingToken() {
                return lease.token();
            }

            @Override
            public boolean leaseHeld() {
                return leaseHeld.getAsBoolean();
            }

            @Override
            public <R> R resource(Class<R> type) {
                throw new IllegalStateException("this executor provides no " + type.getName()
                        + "; use a transactional executor to get one");
            }
        };
    }
}
