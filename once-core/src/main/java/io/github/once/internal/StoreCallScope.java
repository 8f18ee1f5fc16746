package io.github.once.internal;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.util.List;
import java.util.Objects;

/**
 * The default scope: every step is a store call of its own and the handler runs outside any transaction, its
 * lease renewed while it runs. Nothing can be rolled back, so each failed handler's key is released on its own.
 */
public final class StoreCallScope implements ExecutionScope {

    private static final Mark NO_MARK = new Mark() {
        @Override
        public void keep() {
        }

        @Override
        public void undo() {
        }
    };

    private final IdempotencyStore store;
    private final Unit unit = new SeparateCalls();

    public StoreCallScope(IdempotencyStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    @Override
    public IdempotencyStore store() {
        return store;
    }

    @Override
    public Unit begin() {
        return unit; // holds no state: one serves every execution
    }

    private final class SeparateCalls implements Unit {
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
            return NO_MARK;
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
    }
}
