package io.github.once;

import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;
import io.github.once.spi.StoreInspector;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
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
public final class InMemoryIdempotencyStore implements IdempotencyStore {

    private final ConcurrentHashMap<IdempotencyKey, Held> records = new ConcurrentHashMap<>();
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

    /** A store with the defaults: at most 1,000,000 records, the system clock. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public List<ClaimResult> claim(List<ClaimRequest> requests) {
        List<ClaimResult> results = new ArrayList<>(requests.size());
        for (ClaimRequest request : requests) {
            results.add(claim(request));
        }
        return results;
    }

    private ClaimResult claim(ClaimRequest request) {
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
            if (existing != null && !existing.liveAt(now)) {
                existing = null; // past retention: as if absent
                size.decrementAndGet();
            }
            if (existing == null) {
                reserveSlot();
                return acquire(request, now, 0, 0, answer);
            }
            boolean live = existing.completed || existing.time().isAfter(now);
            if (live && conflicts(existing.fingerprint(), request.fingerprint())) {
                answer[0] = new ClaimResult.Conflict(existing.record(key));
                return existing;
            }
            if (existing.completed) {
                answer[0] = new ClaimResult.Duplicate(existing.record(key));
                return existing;
            }
            if (live) {
                answer[0] = new ClaimResult.Busy(existing.time());
                return existing;
            }
            // In progress with a lapsed lease: given back, or taken over from an owner that never came back.
            int inRow = released(key, existing.token) ? 0 : takeovers.getOrDefault(key, 0) + 1;
            return acquire(request, now, existing.token, inRow, answer);
        });
        return answer[0];
    }

    private Held acquire(ClaimRequest request, Instant now, long previousToken, int inRow, ClaimResult[] answer) {
        long token = Math.max(previousToken + 1, micros(now));
        Instant leaseUntil = now.plus(request.leaseDuration());
        Lease lease = new Lease(request.key(), token, leaseUntil);
        if (inRow == 0) {
            takeovers.remove(request.key());
        } else {
            takeovers.put(request.key(), inRow);
        }
        answer[0] = new ClaimResult.Acquired(lease, inRow);
        return new Held(false, token, leaseUntil, Held.pack(request.fingerprint()), null,
                later(leaseUntil, now.plus(request.retention())));
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
    public List<Boolean> complete(List<Completion> completions) {
        List<Boolean> done = new ArrayList<>(completions.size());
        for (Completion c : completions) {
            done.add(complete(c.lease(), c.result(), c.retention()));
        }
        return done;
    }

    private boolean complete(Lease lease, byte[] result, Duration retention) {
        boolean[] done = new boolean[1];
        records.computeIfPresent(lease.key(), (key, existing) -> {
            if (!owns(existing, lease)) {
                return existing;
            }
            done[0] = true;
            Instant now = clock.instant();
            return new Held(true, existing.token, now, existing.fingerprint, Held.copy(result), now.plus(retention));
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
            releasedTokens.put(key, existing.token);
            // Keep the record with a lapsed lease so the fencing counter survives.
            return new Held(false, existing.token, clock.instant(), existing.fingerprint, null, existing.expiresAt());
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
            renewed[0] = new Lease(key, existing.token, until);
            return new Held(false, existing.token, until, existing.fingerprint, null,
                    later(existing.expiresAt(), until));
        });
        return Optional.ofNullable(renewed[0]);
    }

    /** The current owner: in progress, same token, lease not lapsed. */
    private boolean owns(Held existing, Lease lease) {
        return !existing.completed
                && existing.token == lease.token()
                && existing.time().isAfter(clock.instant());
    }

    @Override
    public List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys) {
        List<Optional<IdempotencyRecord>> found = new ArrayList<>(keys.size());
        for (IdempotencyKey key : keys) {
            found.add(find(key));
        }
        return found;
    }

    Optional<IdempotencyRecord> find(IdempotencyKey key) {
        Held found = records.get(key);
        return found == null || !found.liveAt(clock.instant()) ? Optional.empty() : Optional.of(found.record(key));
    }

    /** Deletes at most {@code maxRecords} records past their expiry; the store also does so itself when full. */
    public int purgeExpired(int maxRecords) {
        return purgeExpired(null, maxRecords);
    }

    /** Deletes at most {@code maxRecords} expired records of {@code namespace} (every one when null). */
    int purgeExpired(String namespace, int maxRecords) {
        Instant now = clock.instant();
        return delete(namespace, maxRecords, held -> !held.liveAt(now));
    }

    /** Deletes at most {@code maxRecords} records of {@code namespace}, expired or not. */
    int deleteNamespace(String namespace, int maxRecords) {
        return delete(namespace, maxRecords, held -> true);
    }

    private int delete(String namespace, int maxRecords, java.util.function.Predicate<Held> which) {
        if (maxRecords <= 0) {
            throw new IllegalArgumentException("maxRecords must be positive, but was " + maxRecords);
        }
        int purged = 0;
        Iterator<Map.Entry<IdempotencyKey, Held>> it = records.entrySet().iterator();
        while (it.hasNext() && purged < maxRecords) {
            Map.Entry<IdempotencyKey, Held> e = it.next();
            if ((namespace == null || namespace.equals(e.getKey().namespace()))
                    && which.test(e.getValue()) && records.remove(e.getKey(), e.getValue())) {
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
        return () -> records.entrySet().stream().map(e -> e.getValue().record(e.getKey())).iterator();
    }

    /** Whether {@code record} is in progress because its owner released it (rather than let its lease run out). */
    boolean released(IdempotencyRecord record) {
        return released(record.key(), record.token());
    }

    private boolean released(IdempotencyKey key, long token) {
        Long given = releasedTokens.get(key);
        return given != null && given == token;
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

    /**
     * A record as this store holds it: its instants as seconds and nanoseconds, a SHA-256 hex fingerprint (the
     * default) as its 32 bytes, and one shared empty result. About 110 bytes a record fewer than an
     * {@link IdempotencyRecord} with its two {@link Instant}s and fingerprint string, so that the default
     * {@code maxRecords} of completed records fits in 256 MB of heap. Records are built from it when asked for.
     */
    private static final class Held {
        private static final byte[] EMPTY = new byte[0];
        private static final char[] HEX = "0123456789abcdef".toCharArray();

        final boolean completed;
        final long token;
        /** In progress: the lease's end; completed: when it completed. */
        private final long timeSeconds;
        private final int timeNanos;
        private final long expirySeconds;
        private final int expiryNanos;
        /** null, a lowercase hex SHA-256 packed as 32 bytes, or any other fingerprint as given. */
        final Object fingerprint;
        private final byte[] result;

        Held(boolean completed, long token, Instant time, Object fingerprint, byte[] result, Instant expiresAt) {
            this.completed = completed;
            this.token = token;
            this.timeSeconds = time.getEpochSecond();
            this.timeNanos = time.getNano();
            this.expirySeconds = expiresAt.getEpochSecond();
            this.expiryNanos = expiresAt.getNano();
            this.fingerprint = fingerprint;
            this.result = result;
        }

        Instant time() {
            return Instant.ofEpochSecond(timeSeconds, timeNanos);
        }

        Instant expiresAt() {
            return Instant.ofEpochSecond(expirySeconds, expiryNanos);
        }

        boolean liveAt(Instant now) {
            return expiresAt().isAfter(now);
        }

        String fingerprint() {
            return fingerprint instanceof byte[] packed ? unpack(packed) : (String) fingerprint;
        }

        IdempotencyRecord record(IdempotencyKey key) {
            return new IdempotencyRecord(key, completed ? RecordState.COMPLETED : RecordState.IN_PROGRESS, token,
                    time(), fingerprint(), result, expiresAt());
        }

        /** The caller's result, copied; an empty one shared. */
        static byte[] copy(byte[] result) {
            return result == null ? null : result.length == 0 ? EMPTY : result.clone();
        }

        static Object pack(String fingerprint) {
            if (fingerprint == null || fingerprint.length() != 64) {
                return fingerprint;
            }
            byte[] packed = new byte[32];
            for (int i = 0; i < 32; i++) {
                int hi = lowerHex(fingerprint.charAt(2 * i));
                int lo = lowerHex(fingerprint.charAt(2 * i + 1));
                if (hi < 0 || lo < 0) {
                    return fingerprint; // not lowercase hex: kept as given, so it reads back the same
                }
                packed[i] = (byte) (hi << 4 | lo);
            }
            return packed;
        }

        /** The value of an ASCII lowercase hex digit, else -1. */
        private static int lowerHex(char c) {
            return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        }

        private static String unpack(byte[] packed) {
            char[] out = new char[64];
            for (int i = 0; i < 32; i++) {
                out[2 * i] = HEX[(packed[i] >> 4) & 0xf];
                out[2 * i + 1] = HEX[packed[i] & 0xf];
            }
            return new String(out);
        }
    }

    /** Builds an {@link InMemoryIdempotencyStore}. */
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
