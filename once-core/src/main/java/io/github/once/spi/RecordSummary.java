package io.github.once.spi;

import java.time.Instant;
import java.util.Objects;

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
public record RecordSummary(String namespace, String storageId, RecordStanding standing, long token,
        Instant claimedAt, Instant leaseUntil, Instant expiresAt) {
    public RecordSummary {
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
