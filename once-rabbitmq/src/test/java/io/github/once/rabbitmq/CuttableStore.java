package io.github.once.rabbitmq;

import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A store over another (the in-memory one) that can be cut off: every call then fails with
 * {@link StoreUnavailableException}, as an unreachable store's does, until restored; the records survive.
 */
final class CuttableStore extends ForwardingStore {

    private volatile boolean down;

    CuttableStore(IdempotencyStore inner) {
        super(inner);
    }

    void cut() {
        down = true;
    }

    void restore() {
        down = false;
    }

    private <R> R call(Supplier<R> call) {
        if (down) {
            throw new StoreUnavailableException("cut off by the test");
        }
        return call.get();
    }

    @Override
    public List<ClaimResult> claim(List<ClaimRequest> requests) {
        return call(() -> super.claim(requests));
    }

    @Override
    public List<Boolean> complete(List<Completion> completions) {
        return call(() -> super.complete(completions));
    }

    @Override
    public boolean release(Lease lease) {
        return call(() -> super.release(lease));
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        return call(() -> super.renew(lease, leaseDuration));
    }

    @Override
    public void verify() {
        call(() -> {
            super.verify();
            return null;
        });
    }
}
