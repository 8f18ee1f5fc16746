package io.github.once.internal;

import java.time.Duration;
import java.util.Objects;

/** The check shared by core's value types and configuration builders. */
public final class Durations {
    private Durations() {
    }

    public static Duration requirePositive(Duration value, String name) {
        Objects.requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, but was " + value);
        }
        return value;
    }
}
