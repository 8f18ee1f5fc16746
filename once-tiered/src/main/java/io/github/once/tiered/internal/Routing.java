package io.github.once.tiered.internal;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceException;
import io.github.once.RecordState;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tiered store's routing between the front and the store of record: the front answers the claims of keys it
 * holds a live completed copy of, the store of record the rest; acquired claims' fingerprints are remembered for
 * their copies; a front that fails is left alone for a while. Shared by the store's own calls and its
 * transactional scope.
 */
public final class Routing implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Routing.class);
    /** Claims whose fingerprint is remembered until their completion; beyond this, the oldest are forgotten. */
    private static final int MAX_PENDING = 100_000;

    private final IdempotencyStore front;
    private final Duration frontPause;
    private final Clock clock;
    private final CopyWriter copies;
    /** The fingerprint of each claim acquired and not yet completed, for its copy; guarded by itself. */
    private final Map<Pending, String> fingerprints = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Pending, String> eldest) {
            return size() > MAX_PENDING;
        }
    };
    private final AtomicLong frontHits = new AtomicLong();
    private final AtomicLong frontFailures = new AtomicLong();
    private volatile Instant frontDownUntil = Instant.MIN;

    public Routing(IdempotencyStore front, Duration frontPause, Clock clock, int maxCopiesQueued) {
        this.front = front;
        this.frontPause = frontPause;
        this.clock = clock;
        this.copies = new CopyWriter(front, clock, maxCopiesQueued, e -> frontFailed("copy", e));
    }

    public long frontHits() {
        return frontHits.get();
    }

    public long frontFailures() {
        return frontFailures.get();
    }

    public long copiesSkipped() {
        return copies.skipped();
    }

    public int copiesPending() {
        return copies.pending();
    }

    public Instant now() {
        return clock.instant();
    }

    /**
     * As claims in order: the front answers what it can, {@code recordClaims} the rest in one call. The records of
     * duplicates the store of record answered are added to {@code duplicates}, to be copied.
     */
    public List<ClaimResult> claim(List<ClaimRequest> requests,
                                   Function<List<ClaimRequest>, List<ClaimResult>> recordClaims,
                                   List<IdempotencyRecord> duplicates) {
        List<ClaimResult> results = frontAnswers(requests);
        List<ClaimRequest> missed = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            if (results.get(i) == null) {
                missed.add(requests.get(i));
            }
        }
        if (missed.isEmpty()) {
            return results;
        }
        List<ClaimResult> claims = recordClaims.apply(missed);
        if (claims.size() != missed.size()) {
            throw new OnceException("store answered " + claims.size() + " claims for " + missed.size() + " requests");
        }
        int next = 0;
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) == null) {
                ClaimResult claim = claims.get(next);
                noteClaim(missed.get(next), claim, duplicates);
                results.set(i, claim);
                next++;
            }
        }
        return results;
    }

    /**
     * The copies of the completions recorded, for the front. A completion whose claim's fingerprint is not known here
     * has none (a copy without it could hide a conflict; the next duplicate copies the record instead). Instants
     * are this process's: completed after {@code before}, expiring no later than the record.
     */
    public List<IdempotencyRecord> completed(List<Completion> completions, List<Boolean> recorded, Instant before) {
        List<IdempotencyRecord> completed = new ArrayList<>(completions.size());
        for (int i = 0; i < completions.size(); i++) {
            Completion c = completions.get(i);
            Lease lease = c.lease();
            String fingerprint;
            boolean known;
            synchronized (fingerprints) {
                Pending pending = new Pending(lease.key(), lease.token());
                known = fingerprints.containsKey(pending);
                fingerprint = fingerprints.remove(pending);
            }
            if (known && i < recorded.size() && recorded.get(i)) {
                completed.add(new IdempotencyRecord(lease.key(), RecordState.COMPLETED, lease.token(), clock.instant(),
                        fingerprint, c.result(), before.plus(c.retention())));
            }
        }
        return completed;
    }

    /** Forgets the fingerprint of a claim given back. */
    public void forget(Lease lease) {
        synchronized (fingerprints) {
            fingerprints.remove(new Pending(lease.key(), lease.token()));
        }
    }

    /** Queues copies of completed records for the front, unless the front is paused. */
    public void copyToFront(List<IdempotencyRecord> completed) {
        if (!completed.isEmpty() && !frontPaused()) {
            copies.add(completed);
        }
    }

    /** Checks the front; a failure is a front failure (logged, counted, the front paused), never thrown. */
    public void verifyFront() {
        try {
            front.verify();
        } catch (RuntimeException e) {
            frontFailed("verify", e);
        }
    }

    /** Waits for the copies queued (2 s at most) and stops writing them. */
    @Override
    public void close() {
        copies.close();
    }

    /** The front's answers to the claims, read with one {@code find}; null where it has none. */
    private List<ClaimResult> frontAnswers(List<ClaimRequest> requests) {
        List<ClaimResult> answers = new ArrayList<>(requests.size());
        List<Optional<IdempotencyRecord>> found = null;
        if (!frontPaused()) {
            List<IdempotencyKey> keys = new ArrayList<>(requests.size());
            requests.forEach(request -> keys.add(request.key()));
            try {
                found = front.find(keys);
            } catch (RuntimeException e) {
                frontFailed("find", e);
            }
        }
        for (int i = 0; i < requests.size(); i++) {
            answers.add(found == null || i >= found.size() ? null : answerFromCopy(requests.get(i), found.get(i)));
        }
        return answers;
    }

    /** A duplicate or a conflict from a live copy, else null. */
    private ClaimResult answerFromCopy(ClaimRequest request, Optional<IdempotencyRecord> found) {
        if (found.isEmpty() || found.get().state() != RecordState.COMPLETED) {
            return null;
        }
        IdempotencyRecord copy = FrontCopy.decode(request.key(), found.get().result());
        if (copy == null || !copy.expiresAt().isAfter(clock.instant())) {
            return null;
        }
        frontHits.incrementAndGet();
        boolean conflict = request.fingerprint() != null && copy.fingerprint() != null
                && !request.fingerprint().equals(copy.fingerprint());
        return conflict ? new ClaimResult.Conflict(copy) : new ClaimResult.Duplicate(copy);
    }

    private boolean frontPaused() {
        return clock.instant().isBefore(frontDownUntil);
    }

    private void frontFailed(String operation, RuntimeException e) {
        frontFailures.incrementAndGet();
        boolean wasUp = !frontPaused();
        frontDownUntil = clock.instant().plus(frontPause);
        if (wasUp) {
            log.warn("The front store failed ({}); claims go to the store of record for {}", operation, frontPause, e);
        }
    }

    private record Pending(IdempotencyKey key, long token) {
    }

    /** Remembers an acquired claim's fingerprint for its copy; collects a duplicate's record to copy. */
    private void noteClaim(ClaimRequest request, ClaimResult claim, List<IdempotencyRecord> duplicates) {
        if (claim instanceof ClaimResult.Acquired acquired) {
            synchronized (fingerprints) {
                fingerprints.put(new Pending(request.key(), acquired.lease().token()), request.fingerprint());
            }
        } else if (claim instanceof ClaimResult.Duplicate duplicate) {
            duplicates.add(duplicate.record());
        }
    }
}
