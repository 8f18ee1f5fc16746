package io.github.once.spi;

import io.github.once.IdempotencyRecord;

import java.time.Instant;
import java.util.Objects;

/**
 * One record with what an operator needs beside its stored fields.
 *
 * @param record     the record as {@link IdempotencyStore#find} reads it
 * @param standing   where it stands now, by the store's clock
 * @param claimedAt  when its current (or last) claim was made, by the store's clock
 * @param storageKey the name the store keeps it under when that is not simply its namespace and id (a Redis key),
 *                   or {@code null}
 */
public record InspectedRecord(IdempotencyRecord record, RecordStanding standing, Instant claimedAt,
        String storageKey) {
    public InspectedRecord {
        Objects.requireNonNull(record, "record");
        Objects.requireNonNull(standing, "standing");
        Objects.requireNonNull(claimedAt, "claimedAt");
    }
}
