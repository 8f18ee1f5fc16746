package io.github.once.internal;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256, which every Java runtime is required to provide. */
public final class Digests {
    // Cloned per call: MessageDigest.getInstance looks the provider up and builds the digest by reflection each
    // time, which cost about as much as hashing a 1 KB body (JFR profile of the consumer, 2026-12-06).
    private static final MessageDigest PROTOTYPE = newSha256();

    private Digests() {
    }

    public static byte[] sha256(byte[] input) {
        return fresh().digest(input);
    }

    public static String sha256Hex(byte[] input) {
        return HexFormat.of().formatHex(sha256(input));
    }

    private static MessageDigest fresh() {
        try {
            return (MessageDigest) PROTOTYPE.clone();
        } catch (CloneNotSupportedException e) {
            return newSha256(); // a provider whose digest cannot be cloned: look it up each time
        }
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required by the Java platform", e);
        }
    }
}
