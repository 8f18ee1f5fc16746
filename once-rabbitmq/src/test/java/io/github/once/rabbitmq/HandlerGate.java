package io.github.once.rabbitmq;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Holds a handler until the test lets it go. The handler's side never asserts (an assertion there would only be a
 * handler failure, seen as a time-out elsewhere): a wait that ran out is recorded, and the test checks it on its
 * own thread with {@link #assertNoWaitRanOut()}.
 */
final class HandlerGate {
    private static final Duration MOST = Duration.ofSeconds(60);

    private final CountDownLatch entered = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private final AtomicBoolean ranOut = new AtomicBoolean();

    /** In the handler: says it is in, then waits until released (a minute at most). */
    void hold() throws InterruptedException {
        entered.countDown();
        if (!released.await(MOST.toMillis(), TimeUnit.MILLISECONDS)) {
            ranOut.set(true);
        }
    }

    /** Whether a handler has been held. */
    boolean entered() {
        return entered.getCount() == 0;
    }

    /** On the test's thread: waits until a handler is held. */
    void awaitEntered() throws InterruptedException {
        assertThat(entered.await(MOST.toMillis(), TimeUnit.MILLISECONDS)).as("a handler was entered").isTrue();
    }

    void release() {
        released.countDown();
    }

    /** The held handler went on because it was released, not because its wait ran out. */
    void assertNoWaitRanOut() {
        assertThat(ranOut).as("a held handler's wait ran out before the test released it").isFalse();
    }
}
