package io.github.once.cli.ops;

import java.time.Instant;

/**
 * Records by state at one moment of the store's clock.
 *
 * @param completed        completed records inside their retention
 * @param inProgress       records whose lease is live: a consumer is working on them
 * @param lapsed           in-progress records whose lease ended (released, or the owner died): the next delivery
 *                         takes them over
 * @param expiredBacklog   records past their expiry still stored (a purge deletes them); -1 when the store expires
 *                         records itself
 * @param oldestClaimedAt  when the oldest in-progress record was claimed, or null when there is none
 * @param oldestKey        that record's key ({@code namespace/id}), or null
 * @param now              the store's clock
 * @param note             what the numbers mean for this store, or null
 */
record StoreStats(long completed, long inProgress, long lapsed, long expiredBacklog, Instant oldestClaimedAt,
        String oldestKey, Instant now, String note) {
}
