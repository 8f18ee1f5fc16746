package io.github.once.internal;

import io.github.once.PayloadFingerprint;

/** The fingerprints once-core ships, an enum so they print by name in a configuration's {@code toString}. */
public enum BuiltInFingerprint implements PayloadFingerprint {
    SHA_256 {
        @Override
        public String of(byte[] payload) {
            return Digests.sha256Hex(payload);
        }
    },
    NONE {
        @Override
        public String of(byte[] payload) {
            return null;
        }
    }
}
