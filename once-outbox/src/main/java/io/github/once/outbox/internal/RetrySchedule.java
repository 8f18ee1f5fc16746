package io.github.once.outbox.internal;

import java.time.Duration;

/**
 * How often a returned or refused message is tried, and how long to wait between tries: the first delay, doubled
 * for each later try, capped.
 */
public record RetrySchedule(int maxAttempts, Duration initialDelay, Duration maxDelay) {

    /** Whether a message that has now failed {@code failedAttempts} times is parked instead of tried again. */
    public boolean exhausted(int failedAttempts) {
        return failedAttempts >= maxAttempts;
    }

    /** The wait after the {@code failedAttempts}-th failure. */
    public Duration delayAfter(int failedAttempts) {
        int doublings = Math.min(Math.max(failedAttempts - 1, 0), 30);
        Duration d = initialDelay.multipliedBy(1L << doublings);
        return d.compareTo(maxDelay) > 0 ? maxDelay : d;
    }
}
