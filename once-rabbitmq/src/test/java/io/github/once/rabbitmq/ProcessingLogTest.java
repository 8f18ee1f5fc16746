package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.RecordState;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.Lease;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The processing log: one line per settled delivery with its key-value pairs, fed the events in the order a
 * consumer and its executor call them on one thread, then by a real consumer on the real broker.
 */
class ProcessingLogTest {

    private static final IdempotencyKey KEY = IdempotencyKey.of("orders", "order-42");

    private static Delivery delivery(String messageId) {
        return new Delivery(new Envelope(1, false, "", "orders"),
                new AMQP.BasicProperties.Builder().messageId(messageId).build(), new byte[0]);
    }

    private static IdempotencyRecord completed(IdempotencyKey key) {
        return new IdempotencyRecord(key, RecordState.COMPLETED, 3, Instant.EPOCH, null, new byte[0],
                Instant.EPOCH.plusSeconds(60));
    }

    /** One execution as the consumer thread sees it: delivery, claim, completion, outcome, settlement. */
    private static void settle(ProcessingLog log, Delivery d, IdempotencyKey key, Outcome<?> outcome,
                               ConsumerAction action) {
        log.onDelivery(d, 1);
        log.onStoreCall(OnceListener.StoreOperation.CLAIM, 1, Duration.ofMillis(2), null);
        log.onStoreCall(OnceListener.StoreOperation.COMPLETE, 1, Duration.ofMillis(3), null);
        log.onOutcome(outcome, Duration.ofMillis(9));
        log.onAction(d, key, action);
    }

    @Test
    void aProcessedDeliveryIsOneDebugLineWithItsOutcomeTokenAttemptAndStoreTime() {
        CapturedLog captured = new CapturedLog(Level.DEBUG);
        ProcessingLog log = ProcessingLog.builder().logger(captured).queue("orders").build();
        Delivery d = delivery("order-42");

        log.onDelivery(d, 2);
        log.onStoreCall(OnceListener.StoreOperation.CLAIM, 1, Duration.ofMillis(2), null);
        log.onHandler(KEY, Duration.ofMillis(4), null);
        log.onStoreCall(OnceListener.StoreOperation.RENEW, 1, Duration.ofMillis(50), null); // the renewal thread's, not ours
        log.onStoreCall(OnceListener.StoreOperation.COMPLETE, 1, Duration.ofMillis(3), null);
        log.onOutcome(new Outcome.Processed<>(KEY, null, 7), Duration.ofMillis(9));
        log.onAction(d, KEY, ConsumerAction.PROCESSED);

        assertThat(captured.lines()).singleElement().satisfies(line -> {
            assertThat(line.level()).isEqualTo(Level.DEBUG);
            assertThat(line.message()).isEqualTo("Delivery processed");
            assertThat(line.pairs()).containsEntry("queue", "orders").containsEntry("namespace", "orders")
                    .containsEntry("key", "order-42").containsEntry("action", "processed")
                    .containsEntry("outcome", "processed").containsEntry("attempt", 2).containsEntry("token", 7L)
                    .containsEntry("handlerMs", "4.000").containsEntry("storeMs", "5.000");
        });
    }

    @Test
    void aBatchHoldingOneKeyThriceLogsEachDeliveryWithItsOwnOutcome() {
        CapturedLog captured = new CapturedLog(Level.DEBUG);
        ProcessingLog log = ProcessingLog.builder().logger(captured).queue("orders").build();
        Delivery original = delivery("order-42");
        Delivery resent = delivery("order-42");
        Delivery changed = delivery("order-42");

        // One batch: all three in hand, then every outcome in batch order, then each settles.
        log.onDelivery(original, 1);
        log.onDelivery(resent, 1);
        log.onDelivery(changed, 1);
        log.onStoreCall(OnceListener.StoreOperation.CLAIM, 3, Duration.ofMillis(2), null);
        log.onHandler(KEY, Duration.ofMillis(4), null);
        log.onStoreCall(OnceListener.StoreOperation.COMPLETE, 1, Duration.ofMillis(3), null);
        log.onOutcome(new Outcome.Processed<>(KEY, null, 7), Duration.ofMillis(9));
        log.onOutcome(new Outcome.Duplicate<>(KEY, null, completed(KEY)), Duration.ofMillis(9));
        log.onOutcome(new Outcome.Conflict<>(KEY, completed(KEY), "other"), Duration.ofMillis(9));
        log.onAction(original, KEY, ConsumerAction.PROCESSED);
        log.onAction(resent, KEY, ConsumerAction.DUPLICATE);
        log.onAction(changed, KEY, ConsumerAction.DEAD_LETTERED);

        List<CapturedLog.Line> lines = deliveries(captured);
        assertThat(lines).extracting(l -> l.get("action")).containsExactly("processed", "duplicate", "dead-lettered");
        assertThat(lines).extracting(l -> l.get("outcome")).containsExactly("processed", "duplicate", "conflict");
        assertThat(lines.get(0).pairs()).containsEntry("token", 7L).containsEntry("handlerMs", "4.000");
        assertThat(lines.get(1).pairs()).doesNotContainKey("handlerMs");
        assertThat(lines.get(2).get("reason")).isEqualTo("conflict");
    }

    @Test
    void processedAndDuplicateStayQuietAtInfoWhileFailuresShow() {
        CapturedLog captured = new CapturedLog(Level.INFO);
        ProcessingLog log = ProcessingLog.builder().logger(captured).build();

        settle(log, delivery("a"), KEY, new Outcome.Processed<>(KEY, null, 1), ConsumerAction.PROCESSED);
        settle(log, delivery("a"), KEY, new Outcome.Duplicate<>(KEY, null, completed(KEY)), ConsumerAction.DUPLICATE);
        settle(log, delivery("a"), KEY, new Outcome.Failed<>(KEY, new IllegalStateException("card declined")),
                ConsumerAction.RETRIED_FAILED);

        assertThat(captured.lines()).singleElement().satisfies(line -> {
            assertThat(line.level()).isEqualTo(Level.WARN);
            assertThat(line.pairs()).containsEntry("action", "retried-failed").containsEntry("outcome", "failed")
                    .containsEntry("cause", "java.lang.IllegalStateException: card declined");
            assertThat(line.cause()).isNull(); // a retried failure carries no stack trace; the dead letter does
        });
    }

    @Test
    void deadLettersAreWarningsWithTheirReasonAndCause() {
        CapturedLog captured = new CapturedLog(Level.INFO);
        ProcessingLog log = ProcessingLog.builder().logger(captured).build();
        IllegalStateException boom = new IllegalStateException("boom");

        Delivery noKey = delivery(null);
        log.onDelivery(noKey, 1);
        log.onAction(noKey, null, ConsumerAction.DEAD_LETTERED);
        settle(log, delivery("a"), KEY, new Outcome.Conflict<>(KEY, completed(KEY), "f2"), ConsumerAction.DEAD_LETTERED);
        settle(log, delivery("a"), KEY, new Outcome.Failed<>(KEY, boom), ConsumerAction.DEAD_LETTERED);
        Delivery reported = delivery("b");
        log.onDeadLetter(reported, null, DeadLetterReason.INVALID_KEY, null, null);
        log.onAction(reported, null, ConsumerAction.DEAD_LETTERED);

        List<CapturedLog.Line> lines = captured.lines();
        assertThat(lines).hasSize(4).allSatisfy(l -> assertThat(l.level()).isEqualTo(Level.WARN));
        assertThat(lines).extracting(l -> l.get("reason"))
                .containsExactly("missing-key", "conflict", "max-attempts", "invalid-key");
        assertThat(lines.get(0).pairs()).doesNotContainKeys("key", "namespace");
        assertThat(lines.get(2).cause()).isSameAs(boom);
        assertThat(lines.get(2).get("cause")).isEqualTo("java.lang.IllegalStateException: boom");
    }

    @Test
    void aBatchSharesItsStoreCallsAmongItsDeliveries() {
        CapturedLog captured = new CapturedLog(Level.DEBUG);
        ProcessingLog log = ProcessingLog.builder().logger(captured).build();
        IdempotencyKey a = IdempotencyKey.of("orders", "a");
        IdempotencyKey b = IdempotencyKey.of("orders", "b");
        Delivery da = delivery("a");
        Delivery db = delivery("b");

        log.onDelivery(da, 1);
        log.onDelivery(db, 1);
        log.onStoreCall(OnceListener.StoreOperation.CLAIM, 2, Duration.ofMillis(4), null);
        log.onStoreCall(OnceListener.StoreOperation.COMPLETE, 2, Duration.ofMillis(6), null);
        log.onOutcome(new Outcome.Processed<>(a, null, 1), Duration.ofMillis(20));
        log.onOutcome(new Outcome.Processed<>(b, null, 2), Duration.ofMillis(20));
        log.onAction(da, a, ConsumerAction.PROCESSED);
        log.onAction(db, b, ConsumerAction.PROCESSED);

        assertThat(captured.lines()).extracting(l -> l.get("storeMs")).containsExactly("10.000", "10.000");
        assertThat(captured.lines()).extracting(l -> l.get("token")).containsExactly(1L, 2L);
    }

    @Test
    void samplingKeepsOneLineInNAndNeverTouchesDeadLettersOrLostLeases() {
        CapturedLog captured = new CapturedLog(Level.DEBUG);
        ProcessingLog log = ProcessingLog.builder().logger(captured).sampleOneIn(ConsumerAction.PROCESSED, 10).build();
        for (int i = 0; i < 100; i++) {
            IdempotencyKey key = IdempotencyKey.of("orders", "m-" + i);
            settle(log, delivery("m-" + i), key, new Outcome.Processed<>(key, null, 1), ConsumerAction.PROCESSED);
        }
        assertThat(captured.lines()).hasSize(10);
        assertThat(captured.lines().get(1).get("key")).isEqualTo("m-10");

        assertThatThrownBy(() -> ProcessingLog.builder().sampleOneIn(ConsumerAction.DEAD_LETTERED, 2))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProcessingLog.builder().level(ConsumerAction.RETRIED_LEASE_LOST, Level.DEBUG))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aLostLeaseIsAWarningWithTheLostToken() {
        CapturedLog captured = new CapturedLog(Level.INFO);
        ProcessingLog log = ProcessingLog.builder().logger(captured).build();
        Lease lost = new Lease(KEY, 41, Instant.EPOCH);
        settle(log, delivery("a"), KEY, new Outcome.LeaseLost<>(KEY, lost), ConsumerAction.RETRIED_LEASE_LOST);
        log.onTakeover(new Lease(KEY, 42, Instant.EPOCH));

        assertThat(captured.lines()).hasSize(2).allSatisfy(l -> assertThat(l.level()).isEqualTo(Level.WARN));
        assertThat(captured.lines().get(0).pairs()).containsEntry("outcome", "lease-lost").containsEntry("token", 41L);
        assertThat(captured.lines().get(1).pairs()).containsEntry("key", "order-42").containsEntry("token", 42L);
    }

    @Test
    void aPauseIsLoggedOnceWithItsCauseAndTheResumeWithItsLength() {
        CapturedLog captured = new CapturedLog(Level.INFO);
        ProcessingLog log = ProcessingLog.builder().logger(captured).queue("orders").build();
        StoreUnavailableException down = new StoreUnavailableException("connection refused");

        log.onPause(down, Duration.ofMillis(200));
        log.onPause(down, Duration.ofMillis(400)); // the same outage, probed again
        log.onResume();

        assertThat(captured.lines()).extracting(CapturedLog.Line::level).containsExactly(Level.WARN, Level.INFO);
        assertThat(captured.lines().get(0).pairs()).containsEntry("queue", "orders").containsEntry("backoffMs", 200L)
                .containsEntry("cause", down.toString());
        assertThat(captured.lines().get(1).pairs()).containsKey("pausedMs");
    }

    @Test
    void aStoreErrorThatWaitingWillNotHealIsOneErrorThenARemindEveryPauseReminder() {
        CapturedLog captured = new CapturedLog(Level.INFO);
        ProcessingLog log = ProcessingLog.builder().logger(captured).pauseReminder(Duration.ofMillis(200)).build();
        io.github.once.StoreMisconfiguredException dropped = new io.github.once.StoreMisconfiguredException(
                "relation \"once_record\" does not exist. Fix: run db/once/postgresql/V1__once_record.sql");

        for (int i = 0; i < 20; i++) {
            log.onPause(dropped, Duration.ofMillis(10)); // probes of one outage, faster than the reminder
        }
        assertThat(captured.lines()).singleElement().satisfies(line -> {
            assertThat(line.level()).isEqualTo(Level.ERROR);
            assertThat(line.message()).contains("waiting will not fix it");
            assertThat(line.cause()).isSameAs(dropped); // the stack trace, once
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> {
            log.onPause(dropped, Duration.ofMillis(10));
            return captured.lines().size() == 2;
        });
        assertThat(captured.lines().get(1)).satisfies(line -> {
            assertThat(line.level()).isEqualTo(Level.ERROR);
            assertThat(line.message()).isEqualTo("Consumption still paused");
            assertThat(line.pairs()).containsKey("pausedMs");
            assertThat(line.cause()).isNull();
        });
    }

    @Test
    void digestedKeysNeverShowTheKey() {
        CapturedLog captured = new CapturedLog(Level.DEBUG);
        ProcessingLog log = ProcessingLog.builder().logger(captured).digestKeys(true).build();
        settle(log, delivery("order-42"), KEY, new Outcome.Processed<>(KEY, null, 1), ConsumerAction.PROCESSED);

        CapturedLog.Line line = captured.lines().get(0);
        assertThat(line.get("key")).asString().startsWith("sha256:").hasSize("sha256:".length() + 32);
        assertThat(line.pairs().values()).noneMatch(v -> String.valueOf(v).contains("order-42"));
    }

    private static List<CapturedLog.Line> deliveries(CapturedLog captured) {
        return captured.lines().stream().filter(l -> l.message().startsWith("Delivery ")).toList();
    }

    @Test
    void aRealConsumerLogsEachSettledDelivery() throws Exception {
        try (RabbitFixture rabbit = new RabbitFixture()) {
            RetryPolicy once = rabbit.remember(RetryPolicy.builder().maxAttempts(1).backoff(Duration.ofMillis(50)).build());
            CapturedLog captured = new CapturedLog(Level.DEBUG);
            ProcessingLog log = ProcessingLog.builder().logger(captured).queue(rabbit.queue).build();
            Idempotency executor = rabbit.track(Idempotency.builder(InMemoryIdempotencyStore.builder().build()).listener(log).build());
            rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, executor)
                    .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                    .retry(once)
                    .listener(log)
                    .handler((d, ctx) -> {
                        if (new String(d.getBody(), StandardCharsets.UTF_8).equals("boom")) {
                            throw new IllegalStateException("boom");
                        }
                    })
                    .build().start());
            Channel ch = rabbit.admin();
            publish(ch, rabbit.queue, "m-1", "a");
            publish(ch, rabbit.queue, "m-1", "a");
            publish(ch, rabbit.queue, "m-1", "other");
            publish(ch, rabbit.queue, null, "a");
            publish(ch, rabbit.queue, "m-2", "boom");

            await().atMost(Duration.ofSeconds(10)).until(() -> deliveries(captured).size() >= 5);
            assertThat(captured.lines().get(0).message()).isEqualTo("Consumer started");
            List<CapturedLog.Line> lines = deliveries(captured);
            assertThat(lines).extracting(l -> l.get("action"))
                    .containsExactly("processed", "duplicate", "dead-lettered", "dead-lettered", "dead-lettered");
            assertThat(lines).extracting(l -> l.get("reason"))
                    .containsExactly(null, null, "conflict", "missing-key", "max-attempts");
            assertThat(lines.get(0).pairs()).containsEntry("key", "m-1").containsEntry("attempt", 1)
                    .containsEntry("queue", rabbit.queue).containsKeys("token", "storeMs");
            assertThat(lines.get(4).cause()).hasMessage("boom");
            ch.close();
        }
    }

    private static void publish(Channel ch, String queue, String messageId, String body) throws Exception {
        ch.basicPublish("", queue, new AMQP.BasicProperties.Builder().messageId(messageId).build(),
                body.getBytes(StandardCharsets.UTF_8));
    }
}
