package io.github.once.tiered.internal;

import io.github.once.IdempotencyRecord;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A scope of the store of record (a transaction) with the front read before its claims and, when the scope's
 * commit is the real one, the completions copied to the front after it: a copy must never outlive a rollback.
 */
public final class TieredScope implements ExecutionScope {

    private final IdempotencyStore store;
    private final Routing tiered;
    private final ExecutionScope inner;
    private final boolean copiesAfterCommit;

    /**
     * @param store             the tiered store, which this scope records in
     * @param copiesAfterCommit whether the unit's commit is the real one, so completions are copied after it
     */
    public TieredScope(IdempotencyStore store, Routing tiered, ExecutionScope inner, boolean copiesAfterCommit) {
        this.store = store;
        this.tiered = tiered;
        this.inner = inner;
        this.copiesAfterCommit = copiesAfterCommit;
    }

    @Override
    public IdempotencyStore store() {
        return store;
    }

    @Override
    public Unit begin() {
        return new TieredUnit(inner.begin());
    }

    private final class TieredUnit implements Unit {
        private final Unit inner;
        private final List<IdempotencyRecord> afterCommit = new ArrayList<>();

        TieredUnit(Unit inner) {
            this.inner = inner;
        }

        @Override
        public List<ClaimResult> claim(List<ClaimRequest> requests) {
            return tiered.claim(requests, inner::claim, afterCommit);
        }

        @Override
        public boolean renewsLeases() {
            return inner.renewsLeases();
        }

        @Override
        public boolean atomic() {
            return inner.atomic();
        }

        @Override
        public <R> R resource(Class<R> type) {
            return inner.resource(type);
        }

        @Override
        public Mark mark() {
            return inner.mark();
        }

        @Override
        public List<Boolean> complete(List<Completion> completions) {
            Instant before = tiered.now();
            List<Boolean> recorded = inner.complete(completions);
            afterCommit.addAll(tiered.completed(completions, recorded, before));
            return recorded;
        }

        @Override
        public boolean release(Lease lease) {
            tiered.forget(lease);
            return inner.release(lease);
        }

        @Override
        public void commit() {
            inner.commit();
            if (copiesAfterCommit) {
                tiered.copyToFront(new ArrayList<>(afterCommit));
            }
            afterCommit.clear();
        }

        @Override
        public void rollback() {
            afterCommit.clear();
            inner.rollback();
        }

        @Override
        public void close() {
            afterCommit.clear();
            inner.close();
        }
    }
}
