package io.github.once;

import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;

/**
 * One record as a store holds it.
 *
 * @param key         the key
 * @param state       in progress or completed
 * @param token       the fencing token of the current (or last) owner
 * @param leaseUntil  the lease deadline by the store's clock; for a completed record, when it was completed
 * @param fingerprint hex SHA-256 of the payload, or {@code null} when fingerprinting was off
 * @param result      the encoded result of completed work, or {@code null}
 * @param expiresAt   when the store may forget the record
 */
public record IdempotencyRecord(
        IdempotencyKey key,
        RecordState state,
        long token,
        Instant leaseUntil,
        String fingerprint,
        byte[] result,
        Instant expiresAt) {

    public IdempotencyRecord {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(leaseUntil, "leaseUntil");
        Objects.requireNonNull(expiresAt, "expiresAt");
        result = result == null ? null : result.clone();
    }

    @Override
    public byte[] result() {
        return result == null ? null : result.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IdempotencyRecord r
                && key.equals(r.key) && state == r.state && token == r.token
                && leaseUntil.equals(r.leaseUntil) && Objects.equals(fingerprint, r.fingerprint)
                && Arrays.equals(result, r.result) && expiresAt.equals(r.expiresAt);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, state, token, leaseUntil, fingerprint, Arrays.hashCode(result), expiresAt);
    }

    @Override
    public String toString() {
        return "IdempotencyRecord[" + key + ", " + state + ", token=" + token + ", leaseUntil=" + leaseUntil
                + ", fingerprint=" + fingerprint + ", result=" + (result == null ? "none" : result.length + " bytes")
                + ", expiresAt=" + expiresAt + "]";
    }
}
