package io.github.once;

import io.github.once.internal.Durations;

import java.time.Duration;
import java.util.Objects;

/** Immutable settings of an executor. Start from {@link #defaults()} or {@link #custom()}. */
public final class IdempotencyConfig {

    private static final IdempotencyConfig DEFAULTS = new Builder().build();

    private final Duration leaseDuration;
    private final Duration retention;
    private final PayloadFingerprint fingerprint;

    private IdempotencyConfig(Builder b) {
        this.leaseDuration = b.leaseDuration;
        this.retention = b.retention;
        this.fingerprint = b.fingerprint;
    }

    /** Lease 30 s (renewed every third while the handler runs), retention 24 h, SHA-256 fingerprints. */
    public static IdempotencyConfig defaults() {
        return DEFAULTS;
    }

    public static Builder custom() {
        return new Builder();
    }

    public static Builder from(IdempotencyConfig base) {
        return new Builder().leaseDuration(base.leaseDuration).retention(base.retention).fingerprint(base.fingerprint);
    }

    public Duration leaseDuration() {
        return leaseDuration;
    }

    public Duration retention() {
        return retention;
    }

    public PayloadFingerprint fingerprint() {
        return fingerprint;
    }

    @Override
    public String toString() {
        return "IdempotencyConfig[lease=" + leaseDuration + ", retention=" + retention + ", fingerprint=" + fingerprint + "]";
    }

    public static final class Builder {
        private Duration leaseDuration = Duration.ofSeconds(30);
        private Duration retention = Duration.ofHours(24);
        private PayloadFingerprint fingerprint = PayloadFingerprint.SHA_256;

        private Builder() {
        }

        /** How long a claim lasts without renewal; the executor renews every third of it. */
        public Builder leaseDuration(Duration leaseDuration) {
            this.leaseDuration = Durations.requirePositive(leaseDuration, "leaseDuration");
            if (leaseDuration.toMillis() < 3) {
                throw new IllegalArgumentException("leaseDuration must be at least 3 ms, but was " + leaseDuration);
            }
            return this;
        }

        /** How long a completed record is kept: duplicates within it are skipped, later ones are not. */
        public Builder retention(Duration retention) {
            this.retention = Durations.requirePositive(retention, "retention");
            return this;
        }

        public Builder fingerprint(PayloadFingerprint fingerprint) {
            this.fingerprint = Objects.requireNonNull(fingerprint, "fingerprint");
            return this;
        }

        public IdempotencyConfig build() {
            return new IdempotencyConfig(this);
        }
    }
}
