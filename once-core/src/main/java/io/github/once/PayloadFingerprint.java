package io.github.once;

import io.github.once.internal.BuiltInFingerprint;

/**
 * How a payload is fingerprinted, so a reused id with other content is caught as a conflict. Two payloads with
 * the same fingerprint count as the same content. Use {@link #SHA_256} (the default), {@link #NONE}, or supply
 * your own, such as once-rabbitmq's {@code JsonFingerprint.fields(...)} over chosen JSON fields.
 */
@FunctionalInterface
public interface PayloadFingerprint {
    /** SHA-256 of the payload bytes: any byte changed (field order, whitespace) is other content. */
    PayloadFingerprint SHA_256 = BuiltInFingerprint.SHA_256;
    /** No fingerprint: the same id with any payload is a duplicate. */
    PayloadFingerprint NONE = BuiltInFingerprint.NONE;

    /**
     * The fingerprint to store, or {@code null} to skip the conflict check for this payload. At most 64 ASCII
     * characters (the JDBC store's column), so return a digest such as hex SHA-256, never the content itself.
     */
    String of(byte[] payload);
}
