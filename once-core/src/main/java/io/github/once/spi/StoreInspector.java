package io.github.once.spi;

import io.github.once.IdempotencyKey;

import java.util.List;
import java.util.Optional;

/**
 * What operators ask a store about its records: one record, the oldest claims still in progress, counts by
 * standing, and purging expired records, each for one namespace or all. A store implements it next to its own
 * scripts or SQL, so tools such as the {@code once} command hold no storage format; {@code StoreInspectorContract}
 * in once-testkit checks an implementation. Deadlines and standings use the store's clock.
 */
public interface StoreInspector {

    /**
     * Whether this store tells a released record ({@link RecordStanding#RELEASED}) from one whose lease ran out
     * ({@link RecordStanding#LAPSED}). When false, it reports both as lapsed.
     */
    boolean tellsReleasedFromLapsed();

    /** Whether the store deletes each record itself at its expiry, leaving {@link #purgeExpired} nothing to do. */
    boolean expiresRecordsItself();

    /** The record as stored, with its standing; empty when absent or past its expiry. */
    Optional<InspectedRecord> inspect(IdempotencyKey key);

    /**
     * Counts the records of {@code namespace}, or of every namespace when it is {@code null}. A store without an
     * index for this may read every record: an operator's command, not something to call per message.
     */
    RecordCounts count(String namespace);

    /**
     * The oldest claims still open, oldest first, at most {@code limit}: records {@link RecordStanding#IN_PROGRESS}
     * or {@link RecordStanding#LAPSED} (never released ones where the store tells them apart), of
     * {@code namespace} or of every namespace when it is {@code null}.
     */
    List<RecordSummary> oldestInProgress(String namespace, int limit);

    /**
     * Deletes at most {@code maxRecords} records past their expiry, of {@code namespace} or of every namespace
     * when it is {@code null}: one bounded batch.
     *
     * @return how many were deleted; fewer than {@code maxRecords} means none is left for now
     */
    int purgeExpired(String namespace, int maxRecords);
}
