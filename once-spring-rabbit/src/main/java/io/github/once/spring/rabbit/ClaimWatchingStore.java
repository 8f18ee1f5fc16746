package io.github.once.spring.rabbit;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * The application's store, with the answers of a batch claim shown to the thread that asked: a batch listener is
 * called once, with the messages whose keys the batch claim acquired, so the listener must know them before the
 * first handler runs. Every call goes to the store unchanged.
 */
final class ClaimWatchingStore implements IdempotencyStore {
    private static final ThreadLocal<BiConsumer<List<ClaimRequest>, List<ClaimResult>>> WATCHER = new ThreadLocal<>();

    private final IdempotencyStore store;

    ClaimWatchingStore(IdempotencyStore store) {
        this.store = store;
    }

    /** Runs {@code work} with {@code watcher} told of every batch claim this thread makes meanwhile. */
    static <T> T watching(BiConsumer<List<ClaimRequest>, List<ClaimResult>> watcher,
                          java.util.function.Supplier<T> work) {
        WATCHER.set(watcher);
        try {
            return work.get();
        } finally {
            WATCHER.remove();
        }
    }

    IdempotencyStore store() {
        return store;
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        return store.claim(request);
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        List<ClaimResult> results = store.claimAll(requests);
        BiConsumer<List<ClaimRequest>, List<ClaimResult>> watcher = WATCHER.get();
        if (watcher != null) {
            watcher.accept(requests, results);
        }
        return results;
    }

    @Override
    public boolean complete(Lease lease, byte[] result, Duration retention) {
        return store.complete(lease, result, retention);
    }

    @Override
    public List<Boolean> completeAll(List<Completion> completions) {
        return store.completeAll(completions);
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

    @Override
    public void close() {
        store.close();
    }

    @Override
    public String toString() {
        return store.toString();
    }
}
