package io.github.once.rabbitmq;

import io.github.once.rabbitmq.internal.LineRate;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The log's line budget, on a clock of its own: lines past the budget are counted and reported with the next. */
class LineRateTest {

    private static final long SECOND = 1_000_000_000L;

    @Test
    void linesPastTheBudgetAreLeftOutAndCountedOnTheNextWindowsFirstLine() {
        LineRate rate = new LineRate(3, Duration.ofSeconds(10));
        assertThat(rate.admit(0)).isZero();
        assertThat(rate.admit(SECOND)).isZero();
        assertThat(rate.admit(2 * SECOND)).isZero();
        for (int i = 0; i < 5; i++) {
            assertThat(rate.admit(3 * SECOND + i)).isEqualTo(-1);
        }
        assertThat(rate.admit(10 * SECOND)).as("a new window; five were left out").isEqualTo(5);
        assertThat(rate.admit(10 * SECOND + 1)).isZero();
    }

    @Test
    void aProcessingLogOfManyFailuresKeepsToItsBudget() {
        CapturedLog captured = new CapturedLog(org.slf4j.event.Level.INFO);
        ProcessingLog log = ProcessingLog.builder().logger(captured).rateLimit(5, Duration.ofHours(1)).build();
        for (int i = 0; i < 50; i++) {
            com.rabbitmq.client.Delivery d = new com.rabbitmq.client.Delivery(
                    new com.rabbitmq.client.Envelope(i, false, "", "orders"),
                    new com.rabbitmq.client.AMQP.BasicProperties(), new byte[0]);
            log.onDelivery(d, 1);
            log.onRetry(d, io.github.once.IdempotencyKey.of("orders", "o-" + i), ConsumerAction.RETRIED_FAILED, 2,
                    Duration.ofSeconds(1), new IllegalStateException("down"));
            log.onAction(d, io.github.once.IdempotencyKey.of("orders", "o-" + i), ConsumerAction.RETRIED_FAILED);
        }
        assertThat(captured.lines("Delivery retried-failed")).hasSize(5).allSatisfy(line -> {
            assertThat(line.level()).isEqualTo(org.slf4j.event.Level.WARN);
            assertThat(line.pairs()).containsEntry("cause", "java.lang.IllegalStateException: down")
                    .containsEntry("nextAttempt", 2).containsEntry("delayMs", 1000L);
        });
    }
}
