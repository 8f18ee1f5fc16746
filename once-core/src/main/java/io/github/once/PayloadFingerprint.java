package io.github.once;

import io.github.once.internal.Digests;

/** How a payload is fingerprinted, so a reused id with other content is caught as a conflict. */
public enum PayloadFingerprint {
    /** SHA-256 of the payload bytes. */
    SHA_256 {
        @Override
        public String of(byte[] payload) {
            return Digests.sha256Hex(payload);
        }
    },
    /** No fingerprint: the same id with any payload is a duplicate. */
    NONE {
        @Override
        public String of(byte[] payload) {
            return null;
        }
    };

    /** The fingerprint to store, or {@code null}. */
    public abstract String of(byte[] payload);
}
