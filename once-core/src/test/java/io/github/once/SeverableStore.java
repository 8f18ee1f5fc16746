package io.github.once;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * An in-memory store that can be cut off (every call throws {@link StoreUnavailableException}, as an unreachable
 * Redis does) or flushed (it starts again empty, as a restarted Redis without persistence does); it counts calls.
 * Its asynchronous calls answer on a thread of their own, as the Redis store's do on Lettuce's, and can be held
 * back ({@link #hold()}) until the test lets them go, as a slow front would hold them; once closed, it fails.
 */
final class SeverableStore implements IdempotencyStore {

    /** Daemon threads that stop when idle: nothing to shut down after a test. */
    private static final ExecutorService ASYNC = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "severable-store-async");
        thread.setDaemon(true);
        return thread;
    });

    private volatile InMemoryIdempotencyStore inner = InMemoryIdempotencyStore.create();
    private volatile boolean down;
    private volatile boolean closed;
    private volatile CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
    final AtomicInteger calls = new AtomicInteger();
    /** How many keys each {@code findAllAsync} asked for, noted when it was called (before any hold). */
    final List<Integer> asyncReads = new CopyOnWriteArrayList<>();

    void cut() {
        down = true;
    }

    void restore() {
        down = false;
    }

    void flush() {
        inner = InMemoryIdempotencyStore.create();
    }

    /** Holds every asynchronous call made from now on until {@link #letGo()}. */
    void hold() {
        gate = new CompletableFuture<>();
    }

    void letGo() {
        gate.complete(null);
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

    /** The call on another thread, once the gate is open; a failure reaches the stage wrapped, as futures wrap it. */
    private <R> CompletionStage<R> later(Supplier<R> call) {
        return gate.thenApplyAsync(open -> call.get(), ASYNC);
    }

    @Override
    public CompletionStage<List<ClaimResult>> claimAllAsync(List<ClaimRequest> requests) {
        return later(() -> claimAll(requests));
    }

    @Override
    public CompletionStage<List<Boolean>> completeAllAsync(List<Completion> completions) {
        return later(() -> completeAll(completions));
    }

    @Override
    public CompletionStage<List<Optional<IdempotencyRecord>>> findAllAsync(List<IdempotencyKey> keys) {
        asyncReads.add(keys.size());
        return later(() -> findAll(keys));
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

    @Override
    public void close() {
        closed = true;
    }
}
