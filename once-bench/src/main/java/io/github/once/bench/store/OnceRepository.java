package io.github.once.bench.store;

import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Once's store SPI as an idempotent repository: claim (lease + fencing token), then complete. */
final class OnceRepository implements RepositoryUnderTest {

    private static final Duration LEASE = Duration.ofSeconds(30);

    private final IdempotencyStore store;
    private final String namespace;
    private final Duration retention;
    private final Runnable cleanup;

    OnceRepository(IdempotencyStore store, String namespace, Duration retention, Runnable cleanup) {
        this.store = store;
        this.namespace = namespace;
        this.retention = retention;
        this.cleanup = cleanup;
    }

    @Override
    public boolean claimAndComplete(String key) {
        // No payload fingerprint: the peers have no conflict check either.
        ClaimResult claim = store.claim(List.of(new ClaimRequest(IdempotencyKey.of(namespace, key), null, LEASE,
                retention))).get(0);
        if (claim instanceof ClaimResult.Acquired acquired) {
            if (!store.complete(List.of(new Completion(acquired.lease(), null, retention))).get(0)) {
                throw new IllegalStateException("completion refused for " + key);
            }
            return true;
        }
        if (claim instanceof ClaimResult.Duplicate) {
            return false;
        }
        throw new IllegalStateException("unexpected claim result for " + key + ": " + claim);
    }

    /** One claim call for the batch, then one completion call for the keys it acquired. */
    @Override
    public int claimAndCompleteAll(List<String> keys) {
        List<ClaimRequest> requests = new ArrayList<>(keys.size());
        for (String key : keys) {
            requests.add(new ClaimRequest(IdempotencyKey.of(namespace, key), null, LEASE, retention));
        }
        List<ClaimResult> claims = store.claim(requests);
        List<Completion> completions = new ArrayList<>(keys.size());
        for (int i = 0; i < claims.size(); i++) {
            ClaimResult claim = claims.get(i);
            if (claim instanceof ClaimResult.Acquired acquired) {
                completions.add(new Completion(acquired.lease(), null, retention));
            } else if (!(claim instanceof ClaimResult.Duplicate)) {
                throw new IllegalStateException("unexpected claim result for " + keys.get(i) + ": " + claim);
            }
        }
        if (completions.isEmpty()) {
            return 0;
        }
        List<Boolean> recorded = store.complete(completions);
        for (int i = 0; i < recorded.size(); i++) {
            if (!recorded.get(i)) {
                throw new IllegalStateException("completion refused for " + completions.get(i).lease().key());
            }
        }
        return completions.size();
    }

    @Override
    public void close() {
        try {
            cleanup.run();
        } finally {
            store.close();
        }
    }
}
