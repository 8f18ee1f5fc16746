package io.github.once.rabbitmq;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A store that passes the SPI's required calls on to {@code store}, for tests that watch some of them. The calls
 * with a default ({@code verify}, {@code close}) keep the SPI's default unless a subclass passes them on too.
 */
abstract class ForwardingStore implements IdempotencyStore {
    protected final IdempotencyStore store;

    ForwardingStore(IdempotencyStore store) {
        this.store = Objects.requireNonNull(store, "store");
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
