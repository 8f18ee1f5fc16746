package io.github.once.rabbitmq.internal;

import java.time.Duration;

/** A delay that doubles after every failure up to a cap, and starts over from the first one after a success. */
public record Backoff(Duration initial, Duration max, Duration current) {

    public static Backoff of(Duration initial, Duration max) {
        return new Backoff(initial, max, initial);
    }

    /** The next delay: twice this one, at most the cap. */
    public Backoff doubled() {
        Duration twice = current.multipliedBy(2);
        return new Backoff(initial, max, twice.compareTo(max) > 0 ? max : twice);
    }

    public Backoff reset() {
        return new Backoff(initial, max, initial);
    }
}
