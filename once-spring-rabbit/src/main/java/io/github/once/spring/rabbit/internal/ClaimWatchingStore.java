package io.github.once.spring.rabbit.internal;

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
 * The application's store, with the answers of each claim call shown to the thread that asked: a batch listener is
 * called once, with the messages whose keys the batch claim acquired, so the listener must know them before the
 * first handler runs. Every call goes to the store unchanged.
 */
public final class ClaimWatchingStore implements IdempotencyStore {
    private static final ThreadLocal<BiConsumer<List<ClaimRequest>, List<ClaimResult>>> WATCHER = new ThreadLocal<>();

    private final IdempotencyStore watched;

    public ClaimWatchingStore(IdempotencyStore watched) {
        this.watched = watched;
    }

    /** Runs {@code work} with {@code watcher} told of every claim call this thread makes meanwhile. */
    public static <T> T watching(BiConsumer<List<ClaimRequest>, List<ClaimResult>> watcher,
                          java.util.function.Supplier<T> work) {
        WATCHER.set(watcher);
        try {
            return work.get();
        } finally {
            WATCHER.remove();
        }
    }

    public IdempotencyStore store() {
        return watched;
    }

    @Override
    public List<ClaimResult> claim(List<ClaimRequest> requests) {
        List<ClaimResult> results = watched.claim(requests);
        BiConsumer<List<ClaimRequest>, List<ClaimResult>> watcher = WATCHER.get();
        if (watcher != null) {
            watcher.accept(requests, results);
        }
        return results;
    }

    @Override
    public List<Boolean> complete(List<Completion> completions) {
        return watched.complete(completions);
    }

    @Override
    public boolean release(Lease lease) {
        return watched.release(lease);
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        return watched.renew(lease, leaseDuration);
    }

    @Override
    public List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys) {
        return watched.find(keys);
    }

    @Override
    public void verify() {
        watched.verify();
    }

    @Override
    public void close() {
        watched.close();
    }

    @Override
    public String toString() {
        return watched.toString();
    }
}
