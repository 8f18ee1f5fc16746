package io.github.once.rabbitmq;


import io.github.once.rabbitmq.internal.Durations;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * How failed messages are retried: at most {@link #maxAttempts()} handler attempts, waiting one back-off level
 * between them (level {@code n-1} after the {@code n}-th failure, the last level from then on), then the
 * dead-letter queue. A busy key (another consumer holds it) is retried too, without counting an attempt.
 */
public final class RetryPolicy {

    private static final RetryPolicy DEFAULTS = new Builder().build();

    private final int maxAttempts;
    private final List<Duration> backoff;
    private final Strategy strategy;

    private RetryPolicy(Builder b) {
        this.maxAttempts = b.maxAttempts;
        this.backoff = List.copyOf(b.backoff);
        this.strategy = b.strategy;
    }

    /** 5 attempts, back-off 1 s, 5 s, 30 s, delay queues. */
    public static RetryPolicy defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public static Builder from(RetryPolicy base) {
        Builder b = new Builder();
        b.maxAttempts = base.maxAttempts;
        b.backoff = new ArrayList<>(base.backoff);
        b.strategy = base.strategy;
        return b;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    /** The delay levels, shortest first; one delay queue each. */
    public List<Duration> backoff() {
        return backoff;
    }

    public Strategy strategy() {
        return strategy;
    }

    /** The delay before attempt {@code failedAttempt + 1}. */
    public Duration delayAfterFailure(int failedAttempt) {
        return backoff.get(Math.min(Math.max(failedAttempt, 1), backoff.size()) - 1);
    }

    /** The shortest level that outlasts another owner's lease (by our clock, only a hint), else the longest. */
    public Duration delayWhileBusy(Duration remainingLease) {
        for (Duration level : backoff) {
            if (level.compareTo(remainingLease) >= 0) {
                return level;
            }
        }
        return backoff.get(backoff.size() - 1);
    }

    @Override
    public String toString() {
        return "RetryPolicy[maxAttempts=" + maxAttempts + ", backoff=" + backoff + ", strategy=" + strategy + "]";
    }

    /** Builds {@link RetryPolicy}; every setting has a default unless its factory takes it. */
    public static final class Builder {
        private int maxAttempts = 5;
        private List<Duration> backoff = List.of(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30));
        private Strategy strategy = Strategy.DELAY_QUEUES;

        private Builder() {
        }

        /** Handler attempts before dead-lettering, including the first; 1 means no retry. */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1, but was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** The delay levels; each must be at least 1 ms and not shorter than the one before. */
        public Builder backoff(Duration... levels) {
            Objects.requireNonNull(levels, "backoff");
            if (levels.length == 0 || levels.length > 20) {
                throw new IllegalArgumentException("backoff must have 1 to 20 levels, but had " + levels.length);
            }
            List<Duration> checked = new ArrayList<>();
            for (Duration level : levels) {
                Durations.requirePositive(level, "backoff level");
                if (level.toMillis() < 1) {
                    throw new IllegalArgumentException("backoff levels must be at least 1 ms, but one was " + level);
                }
                if (!checked.isEmpty() && level.compareTo(checked.get(checked.size() - 1)) < 0) {
                    throw new IllegalArgumentException("backoff levels must not decrease, but were " + List.of(levels));
                }
                checked.add(Duration.ofMillis(level.toMillis()));
            }
            this.backoff = checked;
            return this;
        }

        /** {@code levels} delays starting at {@code initial}, each {@code multiplier} times the one before. */
        public Builder exponentialBackoff(Duration initial, double multiplier, int levels) {
            Durations.requirePositive(initial, "initial backoff");
            if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
                throw new IllegalArgumentException("backoff multiplier must be at least 1, but was " + multiplier);
            }
            if (levels < 1 || levels > 20) {
                throw new IllegalArgumentException("backoff must have 1 to 20 levels, but had " + levels);
            }
            Duration[] delays = new Duration[levels];
            double millis = Math.max(1, initial.toMillis());
            for (int i = 0; i < levels; i++) {
                delays[i] = Duration.ofMillis((long) Math.min(millis, Duration.ofDays(1).toMillis()));
                millis *= multiplier;
            }
            return backoff(delays);
        }

        public Builder strategy(Strategy strategy) {
            this.strategy = Objects.requireNonNull(strategy, "strategy");
            return this;
        }

        public RetryPolicy build() {
            return new RetryPolicy(this);
        }
    }

    /** How a message that must be tried again is moved. Both copy the message with a confirm first and ack second. */
    public enum Strategy {
        /**
         * To a delay queue, one per back-off level, whose message TTL dead-letters it back to the work queue. Needs a
         * broker that accepts {@code x-message-ttl} and {@code x-dead-letter-*} queue arguments.
         */
        DELAY_QUEUES,
        /**
         * To the tail of the work queue itself, with no delay. For brokers that refuse the delay-queue arguments;
         * still bounded by the maximum attempts, but a busy key is retried as fast as the queue turns over.
         */
        REQUEUE_TAIL
    }
}
