package io.github.once.rabbitmq;

import java.time.Duration;

/** A delay that doubles after every failure up to a cap, and starts over from the first one after a success. */
record Backoff(Duration initial, Duration max, Duration current) {

    static Backoff of(Duration initial, Duration max) {
        return new Backoff(initial, max, initial);
    }

    /** The next delay: twice this one, at most the cap. */
    Backoff doubled() {
        Duration twice = current.multipliedBy(2);
        return new Backoff(initial, max, twice.compareTo(max) > 0 ? max : twice);
    }

    Backoff reset() {
        return new Backoff(initial, max, initial);
    }
}
