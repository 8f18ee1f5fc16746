package io.github.once;

import io.github.once.internal.StoreCalls;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/** Single-key calls on a store, as batches of one, for the tests of this module (once-testkit has its own). */
final class OneKey {
    private OneKey() {
    }

    static ClaimResult claim(IdempotencyStore store, ClaimRequest request) {
        return StoreCalls.one(store.claim(List.of(request)));
    }

    static boolean complete(IdempotencyStore store, Lease lease, byte[] result, Duration retention) {
        return StoreCalls.one(store.complete(List.of(new Completion(lease, result, retention))));
    }

    static Optional<IdempotencyRecord> find(IdempotencyStore store, IdempotencyKey key) {
        return StoreCalls.one(store.find(List.of(key)));
    }
}
