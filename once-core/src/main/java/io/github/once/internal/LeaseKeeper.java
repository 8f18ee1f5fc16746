package io.github.once.internal;

import io.github.once.OnceListener;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews one lease every third of its duration while a handler runs, so long work keeps its claim (a fixed lock
 * shorter than the work would let a second consumer in). Once a renewal is refused the lease is lost for good:
 * the fencing token then stops the stale completion.
 */
public final class LeaseKeeper {
    private static final Logger log = LoggerFactory.getLogger(LeaseKeeper.class);

    private final Duration leaseDuration;
    private final Function<Lease, Optional<Lease>> renew;
    private final OnceListener listener;
    private volatile Lease current;
    private volatile boolean lost;
    private ScheduledFuture<?> task;

    public LeaseKeeper(Lease lease, Duration leaseDuration, Function<Lease, Optional<Lease>> renew) {
        this(lease, leaseDuration, renew, OnceListener.NONE);
    }

    /** {@code listener} hears every renewal attempt ({@link OnceListener#onRenewal}); it must not throw. */
    public LeaseKeeper(Lease lease, Duration leaseDuration, Function<Lease, Optional<Lease>> renew,
                       OnceListener listener) {
        this.current = lease;
        this.leaseDuration = leaseDuration;
        this.renew = renew;
        this.listener = listener;
    }

    public synchronized void start(ScheduledExecutorService scheduler) {
        long period = Math.max(1, leaseDuration.toMillis() / 3);
        task = scheduler.scheduleWithFixedDelay(this::renewOnce, period, period, TimeUnit.MILLISECONDS);
    }

    private synchronized void renewOnce() {
        if (lost || task == null) {
            return;
        }
        try {
            Optional<Lease> renewed = renew.apply(current);
            if (renewed.isPresent()) {
                current = renewed.get();
                listener.onRenewal(current, true, null);
            } else {
                lost = true;
                task.cancel(false);
                log.warn("Renewal of {} (token {}) was refused: the lease was taken over", current.key(), current.token());
                listener.onRenewal(current, false, null);
            }
        } catch (StoreUnavailableException e) {
            // Keep trying: the lease may still be ours when the store answers again.
            log.warn("Could not renew the lease on {}; will retry", current.key(), e);
            listener.onRenewal(current, false, e);
        } catch (RuntimeException e) {
            log.error("Unexpected failure renewing the lease on {}; will retry", current.key(), e);
            listener.onRenewal(current, false, e);
        }
    }

    /** Stops renewing; waits for a renewal in flight so {@link #current()} is final afterwards. */
    public synchronized void stop() {
        if (task != null) {
            task.cancel(false);
            task = null;
        }
    }

    public Lease current() {
        return current;
    }

    public boolean held() {
        return !lost;
    }
}
