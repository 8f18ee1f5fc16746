package io.github.once;

import io.github.once.internal.Durations;

import java.time.Duration;
import java.util.Objects;

/** Immutable settings of an executor. Start from {@link #defaults()} or {@link #builder()}. */
public final class IdempotencyConfig {

    private static final IdempotencyConfig DEFAULTS = new Builder().build();

    private final Duration leaseDuration;
    private final Duration retention;
    private final PayloadFingerprint fingerprint;
    private final int crashLoopAfter;
    private final int maxResultBytes;

    private IdempotencyConfig(Builder b) {
        this.leaseDuration = b.leaseDuration;
        this.retention = b.retention;
        this.fingerprint = b.fingerprint;
        this.crashLoopAfter = b.crashLoopAfter;
        this.maxResultBytes = b.maxResultBytes;
    }

    /**
     * Lease 30 s (renewed every third while the handler runs), retention 24 h, SHA-256 fingerprints, crash loop
     * after 3 takeovers, results up to 1 MiB.
     */
    public static IdempotencyConfig defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static Builder from(IdempotencyConfig base) {
        return new Builder().leaseDuration(base.leaseDuration).retention(base.retention).fingerprint(base.fingerprint)
                .crashLoopAfter(base.crashLoopAfter).maxResultBytes(base.maxResultBytes);
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

    /** Takeovers of lapsed leases in a row after which a key is a crash loop and its handler no longer runs. */
    public int crashLoopAfter() {
        return crashLoopAfter;
    }

    /** The largest encoded result the executor offers a store; a larger one fails its task with a rejection. */
    public int maxResultBytes() {
        return maxResultBytes;
    }

    @Override
    public String toString() {
        return "IdempotencyConfig[lease=" + leaseDuration + ", retention=" + retention + ", fingerprint=" + fingerprint
                + ", crashLoopAfter=" + crashLoopAfter + ", maxResultBytes=" + maxResultBytes + "]";
    }

    /** Builds {@link IdempotencyConfig}; every setting has a default unless its factory takes it. */
    public static final class Builder {
        private Duration leaseDuration = Duration.ofSeconds(30);
        private Duration retention = Duration.ofHours(24);
        private PayloadFingerprint fingerprint = PayloadFingerprint.SHA_256;
        private int crashLoopAfter = 3;
        private int maxResultBytes = 1024 * 1024;

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

        /**
         * After how many takeovers in a row (default 3) a key counts as a crash loop: a claim that takes over a
         * lease which lapsed without a completion or a release is a takeover, its previous owner most likely died
         * in the handler. The executor then answers {@link Outcome.CrashLoop} without running the handler, so one
         * message that kills its process cannot take down every consumer in turn. {@code Integer.MAX_VALUE}
         * turns the check off.
         */
        public Builder crashLoopAfter(int takeovers) {
            if (takeovers < 1) {
                throw new IllegalArgumentException("crashLoopAfter must be at least 1, but was " + takeovers);
            }
            this.crashLoopAfter = takeovers;
            return this;
        }

        /**
         * The largest encoded result recorded (default 1 MiB). The executor checks it before any store call, so
         * every store answers alike: a larger result fails its task with a {@link StoreRejectedException}, and the
         * key is released.
         */
        public Builder maxResultBytes(int maxResultBytes) {
            if (maxResultBytes < 0) {
                throw new IllegalArgumentException("maxResultBytes must not be negative, but was " + maxResultBytes);
            }
            this.maxResultBytes = maxResultBytes;
            return this;
        }

        public IdempotencyConfig build() {
            return new IdempotencyConfig(this);
        }
    }
}
