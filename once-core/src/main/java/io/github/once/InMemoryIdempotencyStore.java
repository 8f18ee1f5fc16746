package io.github.once;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;
import io.github.once.spi.PurgeableStore;
import io.github.once.spi.StoreInspector;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Records in this process's memory: for tests, demos and single-process consumers whose duplicates only come
 * from the broker. Everything is lost with the process. Claims are atomic per key ({@link ConcurrentHashMap#compute}).
 * The store holds at most {@code maxRecords}; when full it first drops records past their expiry, and if that
 * frees nothing it refuses new keys with {@link StoreFullException}. It never forgets a record inside its
 * retention to make room.
 */
public final class InMemoryIdempotencyStore implements IdempotencyStore, PurgeableStore {

    private final ConcurrentHashMap<IdempotencyKey, IdempotencyRecord> records = new ConcurrentHashMap<>();
    /** The token each key was last released with: a record still at that token was given back, not lapsed. */
    private final ConcurrentHashMap<IdempotencyKey, Long> releasedTokens = new ConcurrentHashMap<>();
    /** Takeovers in a row of each key's lapsed leases, written with its record inside the record's compute(). */
    private final ConcurrentHashMap<IdempotencyKey, Integer> takeovers = new ConcurrentHashMap<>();
    private final AtomicInteger size = new AtomicInteger();
    private final int maxRecords;
    private final Clock clock;

    private InMemoryIdempotencyStore(Builder b) {
        this.maxRecords = b.maxRecords;
        this.clock = b.clock;
    }

    public static InMemoryIdempotencyStore create() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        try {
            return tryClaim(request);
        } catch (StoreFullException full) {
            // Purge outside compute(): a remapping function must not touch other keys of the map.
            if (purgeExpired(Integer.MAX_VALUE) == 0) {
                throw full;
            }
            return tryClaim(request);
        }
    }

    private ClaimResult tryClaim(ClaimRequest request) {
        ClaimResult[] answer = new ClaimResult[1];
        records.compute(request.key(), (key, existing) -> {
            Instant now = clock.instant();
            if (existing != null && !existing.expiresAt().isAfter(now)) {
                existing = null; // past retention: as if absent
                size.decrementAndGet();
            }
            if (existing == null) {
                reserveSlot();
                return acquire(request, now, 0, 0, answer);
            }
            boolean live = existing.state() == RecordState.COMPLETED || existing.leaseUntil().isAfter(now);
            if (live && conflicts(existing.fingerprint(), request.fingerprint())) {
                answer[0] = new ClaimResult.Conflict(existing);
                return existing;
            }
            if (existing.state() == RecordState.COMPLETED) {
                answer[0] = new ClaimResult.Duplicate(existing);
                return existing;
            }
            if (live) {
                answer[0] = new ClaimResult.Busy(existing.leaseUntil());
                return existing;
            }
            // In progress with a lapsed lease: given back, or taken over from an owner that never came back.
            int inRow = released(existing) ? 0 : takeovers.getOrDefault(key, 0) + 1;
            return acquire(request, now, existing.token(), inRow, answer);
        });
        return answer[0];
    }

    private IdempotencyRecord acquire(ClaimRequest request, Instant now, long previousToken, int inRow,
                                      ClaimResult[] answer) {
        long token = Math.max(previousToken + 1, micros(now));
        Instant leaseUntil = now.plus(request.leaseDuration());
        Lease lease = new Lease(request.key(), token, leaseUntil);
        if (inRow == 0) {
            takeovers.remove(request.key());
        } else {
            takeovers.put(request.key(), inRow);
        }
        answer[0] = new ClaimResult.Acquired(lease, inRow);
        return new IdempotencyRecord(request.key(), RecordState.IN_PROGRESS, token, leaseUntil, request.fingerprint(),
                null, later(leaseUntil, now.plus(request.retention())));
    }

    private void reserveSlot() {
        if (size.incrementAndGet() > maxRecords) {
            size.decrementAndGet();
            throw new StoreFullException("in-memory store is full (" + maxRecords
                    + " records inside their retention); raise maxRecords or use a persistent store");
        }
    }

    private static boolean conflicts(String stored, String offered) {
        return stored != null && offered != null && !stored.equals(offered);
    }

    @Override
    public boolean complete(Lease lease, byte[] result, Duration retention) {
        Objects.requireNonNull(retention, "retention");
        boolean[] done = new boolean[1];
        records.computeIfPresent(lease.key(), (key, existing) -> {
            if (!owns(existing, lease)) {
                return existing;
            }
            done[0] = true;
            Instant now = clock.instant();
            return new IdempotencyRecord(key, RecordState.COMPLETED, existing.token(), now, existing.fingerprint(),
                    result, now.plus(retention));
        });
        return done[0];
    }

    @Override
    public boolean release(Lease lease) {
        boolean[] done = new boolean[1];
        records.computeIfPresent(lease.key(), (key, existing) -> {
            if (!owns(existing, lease)) {
                return existing;
            }
            done[0] = true;
            releasedTokens.put(key, existing.token());
            // Keep the record with a lapsed lease so the fencing counter survives.
            return new IdempotencyRecord(key, RecordState.IN_PROGRESS, existing.token(), clock.instant(),
                    existing.fingerprint(), null, existing.expiresAt());
        });
        return done[0];
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        Lease[] renewed = new Lease[1];
        records.computeIfPresent(lease.key(), (key, existing) -> {
            if (!owns(existing, lease)) {
                return existing;
            }
            Instant now = clock.instant();
            Instant until = now.plus(leaseDuration);
            renewed[0] = new Lease(key, existing.token(), until);
            return new IdempotencyRecord(key, RecordState.IN_PROGRESS, existing.token(), until, existing.fingerprint(),
                    null, later(existing.expiresAt(), until));
        });
        return Optional.ofNullable(renewed[0]);
    }

    /** The current owner: in progress, same token, lease not lapsed. */
    private boolean owns(IdempotencyRecord existing, Lease lease) {
        return existing.state() == RecordState.IN_PROGRESS
                && existing.token() == lease.token()
                && existing.leaseUntil().isAfter(clock.instant());
    }

    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        IdempotencyRecord found = records.get(key);
        return found == null || !found.expiresAt().isAfter(clock.instant()) ? Optional.empty() : Optional.of(found);
    }

    @Override
    public int purgeExpired(int maxRecords) {
        return purgeExpired(null, maxRecords);
    }

    /** Deletes at most {@code maxRecords} expired records of {@code namespace} (every one when null). */
    int purgeExpired(String namespace, int maxRecords) {
        if (maxRecords <= 0) {
            throw new IllegalArgumentException("maxRecords must be positive, but was " + maxRecords);
        }
        Instant now = clock.instant();
        int purged = 0;
        Iterator<Map.Entry<IdempotencyKey, IdempotencyRecord>> it = records.entrySet().iterator();
        while (it.hasNext() && purged < maxRecords) {
            Map.Entry<IdempotencyKey, IdempotencyRecord> e = it.next();
            if ((namespace == null || namespace.equals(e.getKey().namespace()))
                    && !e.getValue().expiresAt().isAfter(now) && records.remove(e.getKey(), e.getValue())) {
                releasedTokens.remove(e.getKey());
                takeovers.remove(e.getKey());
                size.decrementAndGet();
                purged++;
            }
        }
        return purged;
    }

    /** Answers operators' questions about these records (counts walk the whole map). */
    public StoreInspector inspector() {
        return new InMemoryStoreInspector(this);
    }

    /** Every record held, expired ones included, as of now. */
    Iterable<IdempotencyRecord> records() {
        return records.values();
    }

    /** Whether {@code record} is in progress because its owner released it (rather than let its lease run out). */
    boolean released(IdempotencyRecord record) {
        Long token = releasedTokens.get(record.key());
        return token != null && token == record.token();
    }

    Instant now() {
        return clock.instant();
    }

    /** Records held, including expired ones not yet purged. */
    public int size() {
        return size.get();
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1_000;
    }

    private static Instant later(Instant a, Instant b) {
        return a.isAfter(b) ? a : b;
    }

    public static final class Builder {
        private int maxRecords = 1_000_000;
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /** The most records held at once (default 1,000,000). */
        public Builder maxRecords(int maxRecords) {
            if (maxRecords <= 0) {
                throw new IllegalArgumentException("maxRecords must be positive, but was " + maxRecords);
            }
            this.maxRecords = maxRecords;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public InMemoryIdempotencyStore build() {
            return new InMemoryIdempotencyStore(this);
        }
    }
}
