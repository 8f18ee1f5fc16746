package io.github.once.outbox.internal;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/** Lets the relay's loop sleep until its next poll, or until a notification says rows were committed. */
public final class WakeSignal {
    private final Semaphore permits = new Semaphore(0);

    public void signal() {
        if (permits.availablePermits() == 0) {
            permits.release();
        }
    }

    /** Waits for a signal or the timeout; true when signalled. Signals that piled up count as one. */
    public boolean await(Duration timeout) throws InterruptedException {
        boolean signalled = permits.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS);
        permits.drainPermits();
        return signalled;
    }
}
