package io.github.once.rabbitmq.internal;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One daemon thread that ticks objects which have no close of their own (the processing logs) for as long as
 * something else holds them: each task holds its object weakly and cancels itself once the object is gone.
 */
public final class WeakTimer {
    private static final ScheduledExecutorService TIMER = timer();

    private WeakTimer() {
    }

    /** Calls {@code tick} with {@code owner} every {@code every}, until {@code owner} is no longer held. */
    public static <T> void every(Duration every, T owner, Consumer<T> tick) {
        WeakReference<T> held = new WeakReference<>(owner);
        AtomicReference<ScheduledFuture<?>> task = new AtomicReference<>();
        long nanos = every.toNanos();
        task.set(TIMER.scheduleAtFixedRate(() -> {
            T o = held.get();
            if (o == null) {
                ScheduledFuture<?> f = task.get();
                if (f != null) {
                    f.cancel(false);
                }
                return;
            }
            try {
                tick.accept(o);
            } catch (RuntimeException e) {
                // A failing tick must not end the schedule (a fixed-rate task that throws never runs again).
            }
        }, nanos, nanos, TimeUnit.NANOSECONDS));
    }

    private static ScheduledExecutorService timer() {
        ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "once-log-timer");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
        return timer;
    }
}
