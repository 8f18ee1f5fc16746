package io.github.once;

import io.github.once.spi.StoreInspector;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** Operators' view of an {@link InMemoryIdempotencyStore}: walks its map. A claim's time is its token (µs). */
final class InMemoryStoreInspector implements StoreInspector {

    private final InMemoryIdempotencyStore store;

    InMemoryStoreInspector(InMemoryIdempotencyStore store) {
        this.store = store;
    }

    @Override
    public boolean tellsReleasedFromLapsed() {
        return true;
    }

    @Override
    public Optional<StoreInspector.Inspected> inspect(IdempotencyKey key) {
        Instant now = store.now();
        return store.find(key).map(r -> new StoreInspector.Inspected(r, standing(r, now), claimedAt(r), null));
    }

    @Override
    public StoreInspector.Counts count(String namespace) {
        Instant now = store.now();
        long[] byStanding = new long[StoreInspector.Standing.values().length];
        long expired = 0;
        for (IdempotencyRecord r : store.records()) {
            if (!inNamespace(r, namespace)) {
                continue;
            }
            if (!r.expiresAt().isAfter(now)) {
                expired++;
            } else {
                byStanding[standing(r, now).ordinal()]++;
            }
        }
        return new StoreInspector.Counts(now, byStanding[StoreInspector.Standing.IN_PROGRESS.ordinal()],
                byStanding[StoreInspector.Standing.RELEASED.ordinal()], byStanding[StoreInspector.Standing.LAPSED.ordinal()],
                byStanding[StoreInspector.Standing.COMPLETED.ordinal()], expired);
    }

    @Override
    public List<StoreInspector.Summary> oldestInProgress(String namespace, int limit) {
        Instant now = store.now();
        List<StoreInspector.Summary> open = new ArrayList<>();
        for (IdempotencyRecord r : store.records()) {
            StoreInspector.Standing standing = standing(r, now);
            if (inNamespace(r, namespace) && r.expiresAt().isAfter(now)
                    && (standing == StoreInspector.Standing.IN_PROGRESS || standing == StoreInspector.Standing.LAPSED)) {
                open.add(new StoreInspector.Summary(r.key().namespace(), r.key().storageId(), standing, r.token(),
                        claimedAt(r), r.leaseUntil(), r.expiresAt()));
            }
        }
        open.sort(Comparator.comparingLong(StoreInspector.Summary::token));
        return List.copyOf(open.subList(0, Math.min(limit, open.size())));
    }

    @Override
    public int purgeExpired(String namespace, int maxRecords) {
        return store.purgeExpired(namespace, maxRecords);
    }

    @Override
    public int deleteNamespace(String namespace, int maxRecords) {
        return store.deleteNamespace(java.util.Objects.requireNonNull(namespace, "namespace"), maxRecords);
    }

    private StoreInspector.Standing standing(IdempotencyRecord r, Instant now) {
        return StoreInspector.Standing.of(r.state(), r.leaseUntil(), now, store.released(r));
    }

    private static boolean inNamespace(IdempotencyRecord r, String namespace) {
        return namespace == null || namespace.equals(r.key().namespace());
    }

    /** The store issues tokens of at least the clock's microseconds at the claim. */
    private static Instant claimedAt(IdempotencyRecord r) {
        return Instant.EPOCH.plus(r.token(), ChronoUnit.MICROS);
    }
}
