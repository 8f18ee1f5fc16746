package io.github.once.rabbitmq.internal;

import io.github.once.rabbitmq.ConsumerListener;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shared by a consumer's channels: closed while the store (or the broker, for moves) cannot be reached, with a
 * back-off that doubles after every failed probe. When the back-off ends the gate opens again and the next
 * deliveries are the probe: if they reach the store the pause is over, if not the gate closes for longer.
 */
public final class PauseGate {
    private static final Logger log = LoggerFactory.getLogger(PauseGate.class);

    private final Clock clock;
    private final ConsumerListener listener;
    private boolean paused;
    private Instant until = Instant.MIN;
    private Backoff backoff;

    public PauseGate(Duration initial, Duration max, Clock clock, ConsumerListener listener) {
        this.backoff = Backoff.of(initial, max);
        this.clock = clock;
        this.listener = listener;
    }

    /** Whether deliveries may be taken: not paused, or paused and due for a probe. */
    public synchronized boolean isOpen() {
        return !paused || !clock.instant().isBefore(until);
    }

    public synchronized boolean isPaused() {
        return paused;
    }

    public void failed(Throwable cause) {
        Duration pause;
        synchronized (this) {
            Instant now = clock.instant();
            if (paused && now.isBefore(until)) {
                return; // another channel already paused us for this outage
            }
            backoff = paused ? backoff.doubled() : backoff.reset();
            paused = true;
            pause = backoff.current();
            until = now.plus(pause);
        }
        log.debug("Pausing consumption for {}: {}", pause, cause.toString()); // the processing log says it once
        listener.onPause(cause, pause);
    }

    public void succeeded() {
        synchronized (this) {
            if (!paused) {
                return;
            }
            paused = false;
        }
        log.debug("Resuming consumption: the store answers again"); // the processing log says it
        listener.onResume();
    }
}
