package io.github.once;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * An in-memory store that can be cut off (every call throws {@link StoreUnavailableException}, as an unreachable
 * Redis does) or flushed (it starts again empty, as a restarted Redis without persistence does); it counts calls.
 */
final class SeverableStore implements IdempotencyStore {

    private volatile InMemoryIdempotencyStore inner = InMemoryIdempotencyStore.create();
    private volatile boolean down;
    final AtomicInteger calls = new AtomicInteger();

    void cut() {
        down = true;
    }

    void restore() {
        down = false;
    }

    void flush() {
        inner = InMemoryIdempotencyStore.create();
    }

    private <R> R call(Supplier<R> call) {
        calls.incrementAndGet();
        if (down) {
            throw new StoreUnavailableException("front cut off", null);
        }
        return call.get();
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        return call(() -> inner.claim(request));
    }

    @Override
    public boolean complete(Lease lease, byte[] result, Duration retention) {
        return call(() -> inner.complete(lease, result, retention));
    }

    @Override
    public boolean release(Lease lease) {
        return call(() -> inner.release(lease));
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        return call(() -> inner.renew(lease, leaseDuration));
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        return call(() -> inner.find(key));
    }

    @Override
    public List<Optional<IdempotencyRecord>> findAll(List<IdempotencyKey> keys) {
        return call(() -> inner.findAll(keys)); // one call, as a store with a batch read makes it
    }
}
