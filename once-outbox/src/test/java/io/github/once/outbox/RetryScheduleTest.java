package io.github.once.outbox;

import io.github.once.outbox.internal.RetrySchedule;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RetryScheduleTest {

    private final RetrySchedule schedule = new RetrySchedule(4, Duration.ofSeconds(1), Duration.ofSeconds(5));

    @Test
    void theDelayDoublesUpToTheCap() {
        assertThat(schedule.delayAfter(1)).isEqualTo(Duration.ofSeconds(1));
        assertThat(schedule.delayAfter(2)).isEqualTo(Duration.ofSeconds(2));
        assertThat(schedule.delayAfter(3)).isEqualTo(Duration.ofSeconds(4));
        assertThat(schedule.delayAfter(4)).isEqualTo(Duration.ofSeconds(5));
        assertThat(schedule.delayAfter(1_000)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void theLastAllowedFailureParks() {
        assertThat(schedule.exhausted(3)).isFalse();
        assertThat(schedule.exhausted(4)).isTrue();
    }
}
