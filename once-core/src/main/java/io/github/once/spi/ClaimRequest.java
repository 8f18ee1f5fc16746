package io.github.once.spi;

import io.github.once.IdempotencyKey;
import io.github.once.internal.Durations;

import java.time.Duration;
import java.util.Objects;

/**
 * One claim.
 *
 * @param key           the key to claim
 * @param fingerprint   hex SHA-256 of the payload, or {@code null} to skip the conflict check
 * @param leaseDuration how long the lease lasts before another consumer may take the key over
 * @param retention     how long the record is kept (an in-progress record outlives its lease this long, so its
 *                      fencing counter survives a takeover)
 */
public record ClaimRequest(IdempotencyKey key, String fingerprint, Duration leaseDuration, Duration retention) {
    public ClaimRequest {
        Objects.requireNonNull(key, "key");
        Durations.requirePositive(leaseDuration, "leaseDuration");
        Durations.requirePositive(retention, "retention");
    }
}
