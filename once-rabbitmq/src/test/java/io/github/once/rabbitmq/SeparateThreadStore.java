package io.github.once.rabbitmq;

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
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * A store over another (the in-memory one) whose asynchronous calls answer on a thread of their own, as a
 * networked store's do, so a pipeline's calls are really in flight while its handlers run. It can be cut off:
 * every call then fails with {@link StoreUnavailableException}, as an unreachable store's does, until restored.
 */
final class SeparateThreadStore implements IdempotencyStore {

    private final IdempotencyStore inner;
    private final ExecutorService answers = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "store-answers");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean down;

    SeparateThreadStore(IdempotencyStore inner) {
        this.inner = inner;
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
    public CompletionStage<List<ClaimResult>> claimAllAsync(List<ClaimRequest> requests) {
        return CompletableFuture.supplyAsync(() -> call(() -> inner.claimAll(requests)), answers);
    }

    @Override
    public CompletionStage<List<Boolean>> completeAllAsync(List<Completion> completions) {
        return CompletableFuture.supplyAsync(() -> call(() -> inner.completeAll(completions)), answers);
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        return call(() -> inner.claim(request));
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        return call(() -> inner.claimAll(requests));
    }

    @Override
    public boolean complete(Lease lease, byte[] result, Duration retention) {
        return call(() -> inner.complete(lease, result, retention));
    }

    @Override
    public List<Boolean> completeAll(List<Completion> completions) {
        return call(() -> inner.completeAll(completions));
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
        return inner.find(key);
    }

    @Override
    public void close() {
        answers.shutdownNow();
    }
}
