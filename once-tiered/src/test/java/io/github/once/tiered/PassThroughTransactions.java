package io.github.once.tiered;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;
import io.github.once.spi.TransactionalStore;

import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A store of record whose "transactions" pass every call straight to {@code store} and undo nothing: enough to see
 * what the tiered store does around a unit's commit and rollback, which is all these tests look at (the tiered store
 * over a real database transaction is tested in examples/order-flow against PostgreSQL).
 */
final class PassThroughTransactions implements TransactionalStore {
    private final IdempotencyStore store;

    PassThroughTransactions(IdempotencyStore store) {
        this.store = store;
    }

    @Override
    public ExecutionScope transactionScope() {
        return scope();
    }

    @Override
    public ExecutionScope joining(Connection connection) {
        return scope();
    }

    private ExecutionScope scope() {
        return new ExecutionScope() {
            @Override
            public IdempotencyStore store() {
                return PassThroughTransactions.this;
            }

            @Override
            public Unit begin() {
                return new Unit() {
                    @Override
                    public List<ClaimResult> claim(List<ClaimRequest> requests) {
                        return store.claim(requests);
                    }

                    @Override
                    public boolean renewsLeases() {
                        return true;
                    }

                    @Override
                    public boolean atomic() {
                        return false;
                    }

                    @Override
                    public <R> R resource(Class<R> type) {
                        return null;
                    }

                    @Override
                    public Mark mark() {
                        return new Mark() {
                            @Override
                            public void keep() {
                            }

                            @Override
                            public void undo() {
                            }
                        };
                    }

                    @Override
                    public List<Boolean> complete(List<Completion> completions) {
                        return store.complete(completions);
                    }

                    @Override
                    public boolean release(Lease lease) {
                        return store.release(lease);
                    }

                    @Override
                    public void commit() {
                    }

                    @Override
                    public void rollback() {
                    }

                    @Override
                    public void close() {
                    }
                };
            }
        };
    }

    @Override
    public List<ClaimResult> claim(List<ClaimRequest> requests) {
        return store.claim(requests);
    }

    @Override
    public List<Boolean> complete(List<Completion> completions) {
        return store.complete(completions);
    }

    @Override
    public boolean release(Lease lease) {
        return store.release(lease);
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        return store.renew(lease, leaseDuration);
    }

    @Override
    public List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys) {
        return store.find(keys);
    }
}
