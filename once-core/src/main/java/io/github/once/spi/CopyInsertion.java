package io.github.once.spi;

import io.github.once.internal.Futures;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** {@link IdempotencyStore#insertCopiesAsync}'s default: a claim of each key, then a completion of those acquired. */
final class CopyInsertion {

    /** How long the store's own claim of a key lasts while its copy is written (two calls). */
    static final Duration COPY_LEASE = Duration.ofSeconds(10);

    private CopyInsertion() {
    }

    static CompletionStage<List<Boolean>> byClaimAndComplete(IdempotencyStore store, List<RecordCopy> copies) {
        if (copies.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        long started = System.nanoTime();
        try {
            List<ClaimRequest> claims = new ArrayList<>(copies.size());
            for (RecordCopy copy : copies) {
                claims.add(new ClaimRequest(copy.key(), null, COPY_LEASE, copy.retention()));
            }
            return Futures.settled(store.claimAllAsync(claims)
                    .thenCompose(acquired -> complete(store, copies, acquired, started)));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** Completes the claims that were acquired, each with what is left of its copy's retention now. */
    private static CompletionStage<List<Boolean>> complete(IdempotencyStore store, List<RecordCopy> copies,
                                                           List<ClaimResult> claims, long started) {
        if (claims.size() != copies.size()) {
            throw new IllegalStateException("store answered " + claims.size() + " claims for " + copies.size()
                    + " copies");
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
        List<Completion> completions = new ArrayList<>(copies.size());
        List<Integer> positions = new ArrayList<>(copies.size());
        for (int i = 0; i < copies.size(); i++) {
            Duration left = copies.get(i).retention().minus(elapsed);
            if (claims.get(i) instanceof ClaimResult.Acquired acquired && !left.isNegative() && !left.isZero()) {
                completions.add(new Completion(acquired.lease(), copies.get(i).result(), left));
                positions.add(i);
            }
        }
        List<Boolean> written = new ArrayList<>(Collections.nCopies(copies.size(), false));
        if (completions.isEmpty()) {
            return CompletableFuture.completedFuture(written);
        }
        return store.completeAllAsync(completions).thenApply(done -> {
            for (int i = 0; i < positions.size(); i++) {
                written.set(positions.get(i), i < done.size() && done.get(i));
            }
            return written;
        });
    }
}
