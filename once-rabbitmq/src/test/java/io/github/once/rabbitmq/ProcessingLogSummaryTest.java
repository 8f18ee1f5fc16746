package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import io.github.once.IdempotencyKey;
import io.github.once.Outcome;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The processing log's lines on its timer, driven here by calling its tick with a later time: the lines the rate
 * limit left out are summed up per reason, a window's deliveries are summed up per action, and a window in which
 * every delivery was dead-lettered for one reason is an ERROR.
 */
class ProcessingLogSummaryTest {

    private static final long MINUTE = Duration.ofMinutes(1).toNanos();

    private static Delivery delivery(String messageId) {
        return new Delivery(new Envelope(1, false, "", "orders"),
                new AMQP.BasicProperties.Builder().messageId(messageId).build(), new byte[0]);
    }

    private static void deadLetter(ProcessingLog log, String id, DeadLetterReason reason) {
        Delivery d = delivery(id);
        IdempotencyKey key = reason == DeadLetterReason.MISSING_KEY ? null : IdempotencyKey.of("orders", id);
        log.onDelivery(d, 1);
        log.onDeadLetter(d, key, reason, null, null);
        log.onAction(d, key, ConsumerAction.DEAD_LETTERED);
    }

    private static void settle(ProcessingLog log, String id, ConsumerAction action) {
        Delivery d = delivery(id);
        IdempotencyKey key = IdempotencyKey.of("orders", id);
        log.onDelivery(d, 1);
        log.onOutcome(new Outcome.Processed<>(key, null, 1), Duration.ofMillis(1));
        log.onAction(d, key, action);
    }

    @Test
    void linesLeftOutByTheRateLimitAreSummedUpOnTheTimerByReason() {
        CapturedLog captured = new CapturedLog(Level.INFO);
        ProcessingLog log = ProcessingLog.builder().logger(captured).queue("orders")
                .rateLimit(2, Duration.ofMinutes(10)).summaryEvery(Duration.ZERO).build();
        for (int i = 0; i < 10; i++) {
            deadLetter(log, "m" + i, i < 8 ? DeadLetterReason.CONFLICT : DeadLetterReason.MISSING_KEY);
        }
        assertThat(captured.lines()).hasSize(2);

        log.tick(System.nanoTime());

        List<CapturedLog.Line> lines = captured.lines();
        assertThat(lines).hasSize(3);
        assertThat(lines.get(2).level()).isEqualTo(Level.WARN);
        assertThat(lines.get(2).message()).isEqualTo("8 more dead-lettered: conflict 6, missing-key 2");
        assertThat(lines.get(2).pairs()).containsEntry("queue", "orders").containsEntry("suppressed", 8L)
                .containsEntry("action", "dead-lettered");
        log.tick(System.nanoTime());
        assertThat(captured.lines()).as("each left-out line is summed up once").hasSize(3);
    }

    @Test
    void aWindowIsSummedUpPerActionWhenItEnds() {
        CapturedLog captured = new CapturedLog(Level.INFO);
        ProcessingLog log = ProcessingLog.builder().logger(captured).queue("orders")
                .summaryEvery(Duration.ofMinutes(1)).build();
        for (int i = 0; i < 5; i++) {
            settle(log, "p" + i, ConsumerAction.PROCESSED);
        }
        settle(log, "p0", ConsumerAction.DUPLICATE);
        settle(log, "p1", ConsumerAction.DUPLICATE);

        log.tick(System.nanoTime());
        assertThat(captured.lines()).as("the window is not over").isEmpty();
        log.tick(System.nanoTime() + 2 * MINUTE);

        assertThat(captured.lines()).singleElement().satisfies(line -> {
            assertThat(line.level()).isEqualTo(Level.INFO);
            assertThat(line.message()).startsWith("Deliveries settled in the last ").endsWith(" s: 7");
            assertThat(line.pairs()).containsEntry("queue", "orders").containsEntry("settled", 7L)
                    .containsEntry("processed", 5L).containsEntry("duplicate", 2L).containsKey("perSecond")
                    .doesNotContainKey("dead-lettered");
        });
        log.tick(System.nanoTime() + 4 * MINUTE);
        assertThat(captured.lines()).as("a window without deliveries says nothing").hasSize(1);
    }

    @Test
    void aWindowInWhichEveryDeliveryWasDeadLetteredForOneReasonIsAnError() {
        CapturedLog captured = new CapturedLog(Level.INFO);
        ProcessingLog log = ProcessingLog.builder().logger(captured).queue("orders")
                .summaryEvery(Duration.ofMinutes(1)).build();
        for (int i = 0; i < 12; i++) {
            deadLetter(log, "k" + i, DeadLetterReason.MISSING_KEY);
        }
        log.tick(System.nanoTime() + 2 * MINUTE);

        List<CapturedLog.Line> errors = captured.lines().stream().filter(l -> l.level() == Level.ERROR).toList();
        assertThat(errors).singleElement().satisfies(line -> {
            assertThat(line.message()).contains("(12) was dead-lettered as missing-key: check how the key is found");
            assertThat(line.pairs()).containsEntry("reason", "missing-key").containsEntry("deadLettered", 12L)
                    .containsEntry("queue", "orders");
        });

        // The next window also has a processed delivery: no ERROR.
        for (int i = 0; i < 12; i++) {
            deadLetter(log, "j" + i, DeadLetterReason.MISSING_KEY);
        }
        settle(log, "fine", ConsumerAction.PROCESSED);
        log.tick(System.nanoTime() + 4 * MINUTE);
        assertThat(captured.lines().stream().filter(l -> l.level() == Level.ERROR)).hasSize(1);
    }
}
