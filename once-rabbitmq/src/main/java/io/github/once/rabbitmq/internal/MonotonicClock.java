package io.github.once.rabbitmq.internal;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The system clock read through {@link System#nanoTime()} from a fixed start: it never steps back or jumps when
 * the wall clock is corrected, so a pause or a confirm deadline measured with it lasts what it says.
 */
public final class MonotonicClock extends Clock {
    public static final MonotonicClock SYSTEM = new MonotonicClock();

    private final Instant origin = Instant.now();
    private final long originNanos = System.nanoTime();

    private MonotonicClock() {
    }

    @Override
    public Instant instant() {
        return origin.plusNanos(System.nanoTime() - originNanos);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this; // the zone plays no part in measuring intervals
    }

    @Override
    public String toString() {
        return "MonotonicClock[system]";
    }
}
