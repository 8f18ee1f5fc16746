package io.github.once.spi;

import io.github.once.internal.Durations;

import java.time.Duration;
import java.util.Objects;

/** One completion in a batch: the lease that did the work, its encoded result, and how long to keep it. */
public record Completion(Lease lease, byte[] result, Duration retention) {
    public Completion {
        Objects.requireNonNull(lease, "lease");
        Durations.requirePositive(retention, "retention");
    }
}
