package io.github.once.rabbitmq;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shared by a consumer's channels: closed while the store (or the broker, for moves) cannot be reached, with a
 * back-off that doubles after every failed probe. When the back-off ends the gate opens again and the next
 * deliveries are the probe: if they reach the store the pause is over, if not the gate closes for longer.
 */
final class PauseGate {
    private static final Logger log = LoggerFactory.getLogger(PauseGate.class);

    private final Duration initial;
    private final Duration max;
    private final ListenerCalls listener;
    private boolean paused;
    private long until;
    private Duration backoff;

    PauseGate(Duration initial, Duration max, ListenerCalls listener) {
        this.initial = initial;
        this.max = max;
        this.listener = listener;
        this.backoff = initial;
    }

    /** Whether deliveries may be taken: not paused, or paused and due for a probe. */
    synchronized boolean isOpen() {
        return !paused || System.nanoTime() - until >= 0;
    }

    synchronized boolean isPaused() {
        return paused;
    }

    void failed(Throwable cause) {
        Duration pause;
        synchronized (this) {
            if (paused && System.nanoTime() - until < 0) {
                return; // another channel already paused us for this outage
            }
            backoff = paused ? min(backoff.multipliedBy(2), max) : initial;
            paused = true;
            until = System.nanoTime() + backoff.toNanos();
            pause = backoff;
        }
        log.warn("Pausing consumption for {}: {}", pause, cause.toString());
        listener.onPause(cause, pause);
    }

    void succeeded() {
        synchronized (this) {
            if (!paused) {
                return;
            }
            paused = false;
            backoff = initial;
        }
        log.info("Resuming consumption: the store answers again");
        listener.onResume();
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
