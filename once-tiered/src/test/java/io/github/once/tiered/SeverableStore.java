package io.github.once.tiered;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * An in-memory store that can be cut off (every call throws {@link StoreUnavailableException}, as an unreachable
 * Redis does) or flushed (it starts again empty, as a restarted Redis without persistence does); it counts calls.
 * Its writes (claims and completions) can be held back ({@link #holdWrites()}) until the test lets them go, as a
 * slow front would hold a copy; reads pass. Once closed, it fails.
 */
final class SeverableStore implements IdempotencyStore {

    private volatile InMemoryIdempotencyStore inner = InMemoryIdempotencyStore.builder().build();
    private volatile boolean down;
    private volatile boolean closed;
    private volatile CountDownLatch gate = new CountDownLatch(0);
    final AtomicInteger calls = new AtomicInteger();
    /** Writes waiting at the gate now. */
    final AtomicInteger held = new AtomicInteger();
    /** How many keys each read asked for. */
    final List<Integer> reads = new java.util.concurrent.CopyOnWriteArrayList<>();

    void cut() {
        down = true;
    }

    void restore() {
        down = false;
    }

    void flush() {
        inner = InMemoryIdempotencyStore.builder().build();
    }

    /** Holds every claim and completion made from now on until {@link #letGo()} (10 s at most). */
    void holdWrites() {
        gate = new CountDownLatch(1);
    }

    void letGo() {
        gate.countDown();
    }

    boolean closed() {
        return closed;
    }

    private <R> R call(Supplier<R> call) {
        calls.incrementAndGet();
        if (down) {
            throw new StoreUnavailableException("front cut off", null);
        }
        if (closed) {
            throw new StoreUnavailableException("store closed", null);
        }
        return call.get();
    }

    private <R> R write(Supplier<R> call) {
        held.incrementAndGet();
        try {
            if (!gate.await(10, TimeUnit.SECONDS)) {
                throw new StoreUnavailableException("held for 10 s", null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreUnavailableException("interrupted while held", e);
        } finally {
            held.decrementAndGet();
        }
        return call(call);
    }

    /** One record as the store holds it, without counting a call. */
    Optional<IdempotencyRecord> peek(IdempotencyKey key) {
        return inner.find(List.of(key)).get(0);
    }

    @Override
    public List<ClaimResult> claim(List<ClaimRequest> requests) {
        return write(() -> inner.claim(requests));
    }

    @Override
    public List<Boolean> complete(List<Completion> completions) {
        return write(() -> inner.complete(completions));
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
    public List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys) {
        reads.add(keys.size());
        return call(() -> inner.find(keys));
    }

    @Override
    public void verify() {
        call(() -> null);
    }

    @Override
    public void close() {
        closed = true;
    }
}
