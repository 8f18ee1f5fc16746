package io.github.once.micrometer;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.Optional;

/** A real store that can be taken down: while down, every call fails as an unreachable store's would. */
final class SwitchableStore implements IdempotencyStore {

    private final IdempotencyStore store;
    private volatile boolean down;

    SwitchableStore(IdempotencyStore store) {
        this.store = store;
    }

    void down(boolean down) {
        this.down = down;
    }

    private void check() {
        if (down) {
            throw new StoreUnavailableException("store is down for the test");
        }
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        check();
        return store.claim(request);
    }

    @Override
    public boolean complete(Lease lease, byte[] result, Duration retention) {
        check();
        return store.complete(lease, result, retention);
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
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        check();
        return store.find(key);
    }
}
