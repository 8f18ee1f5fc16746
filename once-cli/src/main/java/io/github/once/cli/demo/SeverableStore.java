package io.github.once.cli.demo;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * One consumer process's handle on a shared store. When the demo kills the process, the handle is cut: a dead
 * process can neither release its claim nor renew it, so the claim lapses with its lease as it would for real.
 */
final class SeverableStore implements IdempotencyStore {
    private final IdempotencyStore store;
    private volatile boolean severed;

    SeverableStore(IdempotencyStore store) {
        this.store = store;
    }

    void sever() {
        severed = true;
    }

    private void check() {
        if (severed) {
            throw new StoreUnavailableException("this consumer process is dead (simulated crash)");
        }
    }

    @Override
    public List<ClaimResult> claim(List<ClaimRequest> requests) {
        check();
        return store.claim(requests);
    }

    @Override
    public List<Boolean> complete(List<Completion> completions) {
        check();
        return store.complete(completions);
    }

    @Override
    public boolean release(Lease lease) {
        check();
        return store.release(lease);
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        check();
        return store.renew(lease, leaseDuration);
    }

    @Override
    public List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys) {
        check();
        return store.find(keys);
    }
}
