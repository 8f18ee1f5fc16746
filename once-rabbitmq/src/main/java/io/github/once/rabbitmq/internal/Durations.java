package io.github.once.rabbitmq.internal;

import java.time.Duration;
import java.util.Objects;

/** The check the settings builders of this module share. */
public final class Durations {
    private Durations() {
    }

    public static Duration requirePositive(Duration value, String name) {
        if (Objects.requireNonNull(value, name).compareTo(Duration.ZERO) <= 0) {
            throw new IllegalArgumentException(name + " must be positive, but was " + value);
        }
        return value;
    }
}
