package io.github.once.rabbitmq;

import io.github.once.rabbitmq.internal.Backoff;
import io.github.once.rabbitmq.internal.PauseGate;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The store-outage pause and its back-off, driven by a test clock: no sleeps. */
class PauseGateTest {

    private final TestClock clock = new TestClock();
    private final List<Duration> pauses = new CopyOnWriteArrayList<>();
    private final AtomicInteger resumes = new AtomicInteger();
    private final PauseGate gate = new PauseGate(Duration.ofMillis(200), Duration.ofSeconds(1), clock,
            new ConsumerListener() {
                @Override
                public void onPause(Throwable cause, Duration backoff) {
                    pauses.add(backoff);
                }

                @Override
                public void onResume() {
                    resumes.incrementAndGet();
                }
            });
    private final RuntimeException down = new IllegalStateException("store down");

    @Test
    void closedForTheBackOffThenOpenForAProbe() {
        assertThat(gate.isOpen()).isTrue();
        assertThat(gate.isPaused()).isFalse();

        gate.failed(down);
        assertThat(gate.isPaused()).isTrue();
        assertThat(gate.isOpen()).isFalse();
        clock.advance(Duration.ofMillis(199));
        assertThat(gate.isOpen()).isFalse();
        clock.advance(Duration.ofMillis(1));
        assertThat(gate.isOpen()).as("due for a probe").isTrue();
        assertThat(gate.isPaused()).as("still paused until the probe reaches the store").isTrue();
        assertThat(pauses).containsExactly(Duration.ofMillis(200));
    }

    @Test
    void everyFailedProbeDoublesThePauseUpToTheMaximum() {
        for (int i = 0; i < 5; i++) {
            gate.failed(down);
            clock.advance(pauses.get(pauses.size() - 1));
        }
        assertThat(pauses).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(800),
                Duration.ofSeconds(1), Duration.ofSeconds(1));
    }

    @Test
    void failuresOfOtherChannelsDuringAPauseDoNotLengthenIt() {
        gate.failed(down);
        clock.advance(Duration.ofMillis(100));
        gate.failed(down); // another channel hit the same outage
        assertThat(pauses).containsExactly(Duration.ofMillis(200));
        clock.advance(Duration.ofMillis(100));
        assertThat(gate.isOpen()).isTrue();
    }

    @Test
    void aSuccessfulProbeResumesAndTheNextOutageStartsFromTheFirstPause() {
        gate.failed(down);
        clock.advance(Duration.ofMillis(200));
        gate.failed(down);
        clock.advance(Duration.ofMillis(400));
        gate.succeeded();
        assertThat(gate.isPaused()).isFalse();
        assertThat(resumes.get()).isEqualTo(1);
        gate.succeeded(); // not paused: nothing to report
        assertThat(resumes.get()).isEqualTo(1);

        gate.failed(down);
        assertThat(pauses).containsExactly(Duration.ofMillis(200), Duration.ofMillis(400), Duration.ofMillis(200));
    }

    @Test
    void backoffDoublesToItsCapAndResets() {
        Backoff b = Backoff.of(Duration.ofMillis(100), Duration.ofMillis(350));
        assertThat(b.current()).isEqualTo(Duration.ofMillis(100));
        b = b.doubled();
        assertThat(b.current()).isEqualTo(Duration.ofMillis(200));
        b = b.doubled();
        assertThat(b.current()).isEqualTo(Duration.ofMillis(350));
        assertThat(b.doubled().current()).isEqualTo(Duration.ofMillis(350));
        assertThat(b.reset().current()).isEqualTo(Duration.ofMillis(100));
    }
}
