package io.github.once.rabbitmq;

import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Wakes a pipelined channel's thread when anything comes for it: a delivery, a store's answer. A ring between
 * the thread's last look and its wait is kept, so no wake-up is lost.
 */
final class Doorbell {
    private final Semaphore rings = new Semaphore(0);

    /** From any thread. */
    void ring() {
        if (rings.availablePermits() == 0) {
            rings.release(); // one ring is enough to wake; more would only spin the waiter
        }
    }

    /** Waits for a ring, at most {@code millis}; takes every ring that came meanwhile. */
    void await(long millis) throws InterruptedException {
        if (rings.tryAcquire(millis, TimeUnit.MILLISECONDS)) {
            rings.drainPermits();
        }
    }
}
