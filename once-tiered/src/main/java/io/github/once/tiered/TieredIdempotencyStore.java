package io.github.once.tiered;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;
import io.github.once.spi.TransactionalStore;
import io.github.once.tiered.internal.Routing;
import io.github.once.tiered.internal.TieredScope;

import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A store over two stores: a store of record (such as the JDBC store) that holds every claim, lease, fencing token
 * and completion, and a front (such as the Redis store) that answers duplicates of completed records without
 * touching the store of record.
 *
 * <pre>{@code
 * TieredIdempotencyStore store = TieredIdempotencyStore.builder(redisStore, jdbcStore).build();
 * Idempotency once = Idempotency.builder(store).build();
 * // transactional mode: the front is written after the transaction commits
 * Idempotency tx = Idempotency.builder(store).transactional().build();
 * }</pre>
 *
 * <p>The front holds completed records only, each a copy of the store of record's (token, fingerprint, result,
 * expiry), kept as the result of the front's own record of the same key, so any {@link IdempotencyStore} can be a
 * front. A claim reads the front first (one {@code find} for a batch): a completed copy answers {@code Duplicate}
 * (or {@code Conflict} for another fingerprint); anything else goes to the store of record. A completion is written
 * to the store of record first and copied to the front after it (after the commit, in a transaction); a duplicate
 * the store of record answers is copied too, so a front that was emptied fills again. Copies are written on a
 * thread of this store's, in batches, so no caller waits for them; until a copy is written, a duplicate of its key
 * is answered by the store of record, as with an empty front. At most {@link Builder#maxCopiesInFlight(int)}
 * copies (1,024 by default) wait at once; one beyond that is skipped and counted ({@link #copiesSkipped()}).
 *
 * <p>Losing the front never changes an answer: a front that was flushed or restarted empty only sends claims to the
 * store of record; a front that fails is logged, counted ({@link #frontFailures()}) and left alone for
 * {@link Builder#frontPause(Duration)} while every call goes to the store of record. Set the front's own timeout
 * short (a few hundred milliseconds), since one failing call waits that long.
 *
 * <p>A copy expires no later than its record (its retention is what is left of the record's at the time of the
 * copy, by this process's clock). Deleting a record from the store of record by hand before it expires does not
 * delete its copy: delete it from the front too, or flush the front. Closing this store waits a little for the
 * copies queued (2 s at most), then closes both stores.
 */
public final class TieredIdempotencyStore implements TransactionalStore {

    private final IdempotencyStore front;
    private final IdempotencyStore records;
    private final Routing routing;

    private TieredIdempotencyStore(Builder b) {
        this.front = b.front;
        this.records = b.records;
        this.routing = new Routing(front, b.frontPause, b.clock, b.maxCopiesInFlight);
    }

    /** A tiered store of {@code front} before {@code records}, the store of record. */
    public static Builder builder(IdempotencyStore front, IdempotencyStore records) {
        return new Builder(front, records);
    }

    public IdempotencyStore front() {
        return front;
    }

    public IdempotencyStore records() {
        return records;
    }

    /** Claims the front answered without the store of record, since this store was built. */
    public long frontHits() {
        return routing.frontHits();
    }

    /** Calls to the front that failed, since this store was built. */
    public long frontFailures() {
        return routing.frontFailures();
    }

    /**
     * Copies to the front skipped because {@link Builder#maxCopiesInFlight(int)} copies were waiting, since this
     * store was built. A skipped copy changes no answer: the next duplicate the store of record answers copies it.
     */
    public long copiesSkipped() {
        return routing.copiesSkipped();
    }

    /** Copies queued or being written (for tests that wait for them). */
    int copiesPending() {
        return routing.copiesPending();
    }

    @Override
    public List<ClaimResult> claim(List<ClaimRequest> requests) {
        List<IdempotencyRecord> duplicates = new ArrayList<>();
        List<ClaimResult> results = routing.claim(requests, records::claim, duplicates);
        routing.copyToFront(duplicates);
        return results;
    }

    @Override
    public List<Boolean> complete(List<Completion> completions) {
        Instant before = routing.now();
        List<Boolean> recorded = records.complete(completions);
        routing.copyToFront(routing.completed(completions, recorded, before));
        return recorded;
    }

    @Override
    public boolean release(Lease lease) {
        routing.forget(lease);
        return records.release(lease);
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        return records.renew(lease, leaseDuration);
    }

    /** The store of record's records: the front holds copies only. */
    @Override
    public List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys) {
        return records.find(keys);
    }

    /**
     * Checks the store of record; a front that fails its check is logged and left alone for the front pause, since
     * the store of record answers everything without it.
     */
    @Override
    public void verify() {
        records.verify();
        routing.verifyFront();
    }

    /**
     * Transactional mode, when the store of record runs transactions: its transaction scope, with the front read
     * before the claims and the completions copied to the front after each commit.
     *
     * @throws IllegalArgumentException when the store of record runs no transactions
     */
    @Override
    public ExecutionScope transactionScope() {
        return new TieredScope(this, routing, recordsTransactional().transactionScope(), true);
    }

    /**
     * The store of record's scope joining the caller's transaction, with the front read before the claim. Nothing
     * is copied to the front from it: the commit is the caller's, after the scope is done, so a copy could outlive
     * a rollback. The next duplicate that reaches the store of record copies the record instead.
     *
     * @throws IllegalArgumentException when the store of record runs no transactions
     */
    @Override
    public ExecutionScope joining(Connection connection) {
        return new TieredScope(this, routing, recordsTransactional().joining(connection), false);
    }

    private TransactionalStore recordsTransactional() {
        if (records instanceof TransactionalStore transactional) {
            return transactional;
        }
        throw new IllegalArgumentException("transactional mode needs a store of record that runs transactions,"
                + " such as once-jdbc's JdbcIdempotencyStore, but the store of record is " + records);
    }

    /** Waits for the copies queued (2 s at most), then closes both stores. */
    @Override
    public void close() {
        routing.close();
        try {
            front.close();
        } finally {
            records.close();
        }
    }

    @Override
    public String toString() {
        return "TieredIdempotencyStore[front=" + front + ", records=" + records + "]";
    }

    /** Builds a {@link TieredIdempotencyStore}. */
    public static final class Builder {
        private final IdempotencyStore front;
        private final IdempotencyStore records;
        private Duration frontPause = Duration.ofSeconds(1);
        private Clock clock = Clock.systemUTC();
        private int maxCopiesInFlight = 1_024;

        private Builder(IdempotencyStore front, IdempotencyStore records) {
            this.front = Objects.requireNonNull(front, "front");
            this.records = Objects.requireNonNull(records, "records");
            if (front == records) {
                throw new IllegalArgumentException("the front and the store of record must be two stores");
            }
        }

        /** How long a failed front is left alone, every call going to the store of record (1 s by default). */
        public Builder frontPause(Duration frontPause) {
            if (Objects.requireNonNull(frontPause, "frontPause").compareTo(Duration.ZERO) <= 0) {
                throw new IllegalArgumentException("frontPause must be positive, but was " + frontPause);
            }
            this.frontPause = frontPause;
            return this;
        }

        /** This process's clock, for the copies' expiry and the front's pause. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How many copies may wait to be written to the front at once (1,024 by default). A copy beyond it is
         * skipped and counted ({@link TieredIdempotencyStore#copiesSkipped()}), never waited for: the caller is
         * never held by a slow front, and memory stays bounded.
         */
        public Builder maxCopiesInFlight(int maxCopiesInFlight) {
            if (maxCopiesInFlight < 1) {
                throw new IllegalArgumentException("maxCopiesInFlight must be at least 1, not " + maxCopiesInFlight);
            }
            this.maxCopiesInFlight = maxCopiesInFlight;
            return this;
        }

        public TieredIdempotencyStore build() {
            return new TieredIdempotencyStore(this);
        }
    }
}
