package io.github.once.micrometer;

import io.github.once.StoreUnavailableException;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The in-memory store's clock, under the test's control: moved forward so a lease lapses on demand, or taken
 * down so that every store call fails the way an unreachable store's does.
 */
final class StoreClock extends Clock {

    private final AtomicReference<Duration> ahead = new AtomicReference<>(Duration.ZERO);
    private volatile boolean down;

    void advance(Duration d) {
        ahead.updateAndGet(a -> a.plus(d));
    }

    void down(boolean down) {
        this.down = down;
    }

    @Override
    public Instant instant() {
        if (down) {
            throw new StoreUnavailableException("store is down for the test");
        }
        return Instant.now().plus(ahead.get());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
