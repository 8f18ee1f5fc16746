package io.github.once.spi;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.RecordState;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What operators ask a store about its records: one record, the oldest claims still in progress, counts by
 * standing, and purging expired records, each for one namespace or all. A store implements it next to its own
 * scripts or SQL, so tools such as the {@code once} command hold no storage format; {@code StoreInspectorContract}
 * in once-testkit checks an implementation. Deadlines and standings use the store's clock.
 */
public interface StoreInspector {

    /**
     * Whether this store tells a released record ({@link Standing#RELEASED}) from one whose lease ran out
     * ({@link Standing#LAPSED}). When false, it reports both as lapsed.
     */
    boolean tellsReleasedFromLapsed();

    /**
     * Whether the store deletes each record itself at its expiry, leaving {@link #purgeExpired} nothing to do (Redis
     * does). False by default.
     */
    default boolean expiresRecordsItself() {
        return false;
    }

    /** The record as stored, with its standing; empty when absent or past its expiry. */
    Optional<Inspected> inspect(IdempotencyKey key);

    /**
     * Counts the records of {@code namespace}, or of every namespace when it is {@code null}. A store without an
     * index for this may read every record: an operator's command, not something to call per message.
     */
    Counts count(String namespace);

    /**
     * The oldest claims still open, oldest first, at most {@code limit}: records {@link Standing#IN_PROGRESS}
     * or {@link Standing#LAPSED} (never released ones where the store tells them apart), of
     * {@code namespace} or of every namespace when it is {@code null}.
     */
    List<Summary> oldestInProgress(String namespace, int limit);

    /**
     * Deletes at most {@code maxRecords} records past their expiry, of {@code namespace} or of every namespace
     * when it is {@code null}: one bounded batch.
     *
     * @return how many were deleted; fewer than {@code maxRecords} means none is left for now
     */
    int purgeExpired(String namespace, int maxRecords);

    /**
     * Deletes at most {@code maxRecords} records of {@code namespace}, whatever their standing: one bounded batch of
     * an operator's reset of the namespace (the {@code once} command's, a demo's clean-up). Stop the namespace's
     * consumers first: a record in progress deleted under its owner lets a redelivery run the handler again, and a
     * completed one lets a duplicate run it again.
     *
     * @return how many were deleted; fewer than {@code maxRecords} means none is left
     */
    int deleteNamespace(String namespace, int maxRecords);

    /**
     * One record with what an operator needs beside its stored fields.
     *
     * @param record     the record as {@link IdempotencyStore#find} reads it
     * @param standing   where it stands now, by the store's clock
     * @param claimedAt  when its current (or last) claim was made, by the store's clock
     * @param storageKey the name the store keeps it under when that is not simply its namespace and id (a Redis key),
     *                   or {@code null}
     */
    record Inspected(IdempotencyRecord record, Standing standing, Instant claimedAt,
            String storageKey) {
        public Inspected {
            Objects.requireNonNull(record, "record");
            Objects.requireNonNull(standing, "standing");
            Objects.requireNonNull(claimedAt, "claimedAt");
        }
    }

    /**
     * Records by standing at one moment of the store's clock. Records past their expiry count only as
     * {@code expired}, whatever their state.
     *
     * @param now        the store's clock when it counted
     * @param inProgress in progress under a live lease
     * @param released   given back by a failed handler, waiting for the retry (always 0 from a store that does not
     *                   tell released from lapsed)
     * @param lapsed     in progress with a lease that ran out (with such a store: or released)
     * @param completed  completed, inside their retention
     * @param expired    past their expiry but still stored: what a purge deletes
     */
    record Counts(Instant now, long inProgress, long released, long lapsed, long completed, long expired) {
        public Counts {
            Objects.requireNonNull(now, "now");
        }
    }

    /**
     * Where a record stands for an operator, by the store's clock: finer than {@link io.github.once.RecordState},
     * which a consumer needs, because an operator asks why a key is in progress.
     */
    enum Standing {
        /** In progress under a live lease: a consumer is working on it now. */
        IN_PROGRESS,
        /**
         * In progress, but its owner gave the claim back (its handler failed) and the key waits for its retry; the
         * next delivery claims it at once. Only stores whose {@link StoreInspector#tellsReleasedFromLapsed()} is true
         * report it.
         */
        RELEASED,
        /**
         * In progress, and its lease ran out without a release: the owner died or stalled. A store that does not tell
         * released from lapsed reports a released record as lapsed too.
         */
        LAPSED,
        /** The work is done; the result is kept until the record expires. */
        COMPLETED;

        /**
         * The standing of a record inside its retention.
         *
         * @param state      its stored state
         * @param leaseUntil its lease deadline
         * @param now        the store's clock
         * @param released   whether the store saw its current claim released
         */
        public static Standing of(RecordState state, Instant leaseUntil, Instant now, boolean released) {
            if (state == RecordState.COMPLETED) {
                return COMPLETED;
            }
            if (leaseUntil.isAfter(now)) {
                return IN_PROGRESS;
            }
            return released ? RELEASED : LAPSED;
        }
    }

    /**
     * A record in a listing: its key as stored (a long id is stored as its digest, so the original id may not be
     * known) and its times.
     *
     * @param namespace  the key's namespace
     * @param storageId  the key's id as stored ({@link io.github.once.IdempotencyKey#storageId()})
     * @param standing   where it stands now
     * @param token      the fencing token of its current (or last) claim
     * @param claimedAt  when that claim was made, by the store's clock
     * @param leaseUntil its lease deadline
     * @param expiresAt  when the store may forget it
     */
    record Summary(String namespace, String storageId, Standing standing, long token,
            Instant claimedAt, Instant leaseUntil, Instant expiresAt) {
        public Summary {
            Objects.requireNonNull(namespace, "namespace");
            Objects.requireNonNull(storageId, "storageId");
            Objects.requireNonNull(standing, "standing");
            Objects.requireNonNull(claimedAt, "claimedAt");
            Objects.requireNonNull(leaseUntil, "leaseUntil");
            Objects.requireNonNull(expiresAt, "expiresAt");
        }

        /** {@code namespace/storageId}, as operators read a key. */
        public String displayKey() {
            return namespace + "/" + storageId;
        }
    }
}
