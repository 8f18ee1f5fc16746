package io.github.once.spi;

/** A store that deletes expired records on request, in bounded batches. Stores with native expiry need not. */
public interface PurgeableStore {

    /**
     * Deletes at most {@code maxRecords} records whose expiry has passed.
     *
     * @return how many were deleted; fewer than {@code maxRecords} means the backlog is empty for now
     */
    int purgeExpired(int maxRecords);
}
