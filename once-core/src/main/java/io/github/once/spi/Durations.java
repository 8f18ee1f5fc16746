package io.github.once.spi;

import java.time.Duration;
import java.util.Objects;

/** Checks shared by the SPI's value types and the configuration builders. */
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
