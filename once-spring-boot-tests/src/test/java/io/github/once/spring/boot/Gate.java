package io.github.once.spring.boot;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/** Holds the first handler call for one message inside the handler until the test lets it go. */
final class Gate {
    private static final Duration LONGEST = Duration.ofSeconds(30);

    private final AtomicBoolean taken = new AtomicBoolean();
    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);

    /** Called in the handler: the first call waits for {@link #release()} (at most 30 s), later ones pass. */
    void pass() throws InterruptedException {
        if (taken.compareAndSet(false, true)) {
            entered.countDown();
            if (!released.await(LONGEST.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("the test never released the gate");
            }
        }
    }

    void awaitEntered() throws InterruptedException {
        assertThat(entered.await(10, TimeUnit.SECONDS)).as("the handler was entered").isTrue();
    }

    void release() {
        released.countDown();
    }
}
