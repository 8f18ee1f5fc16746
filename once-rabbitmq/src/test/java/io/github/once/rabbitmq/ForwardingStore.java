package io.github.once.rabbitmq;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A store that passes the SPI's required calls on to {@code store}, for tests that watch some of them. The calls
 * with a default (batches, asynchronous calls, look-ahead, close) keep the SPI's default unless a subclass passes
 * them on too: a test that watches each claim through the default {@code claimAll} relies on that.
 */
abstract class ForwardingStore implements IdempotencyStore {
    protected final IdempotencyStore store;

    ForwardingStore(IdempotencyStore store) {
        this.store = Objects.requireNonNull(store, "store");
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        return store.claim(request);
    }

    @Override
    public boolean complete(Lease lease, byte[] result, Duration retention) {
        return store.complete(lease, result, retention);
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
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        return store.find(key);
    }
}
