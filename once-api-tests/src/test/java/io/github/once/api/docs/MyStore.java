package io.github.once.api.docs;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The store a reader of docs/api.md writes, as its snippet constructs it: a class with the reader's own settings.
 * Only its signature matters to {@code DocsSnippetsTest}, which compiles the snippet against it.
 */
public final class MyStore implements IdempotencyStore {
    private final IdempotencyStore memory = InMemoryIdempotencyStore.builder().build();

    public MyStore(String host, int port) {
    }

    @Override
    public List<ClaimResult> claim(List<ClaimRequest> requests) {
        return memory.claim(requests);
    }

    @Override
    public List<Boolean> complete(List<Completion> completions) {
        return memory.complete(completions);
    }

    @Override
    public boolean release(Lease lease) {
        return memory.release(lease);
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        return memory.renew(lease, leaseDuration);
    }

    @Override
    public List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys) {
        return memory.find(keys);
    }
}
