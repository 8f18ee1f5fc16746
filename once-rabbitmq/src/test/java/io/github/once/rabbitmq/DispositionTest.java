package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.Outcome;
import io.github.once.RecordState;
import io.github.once.StoreRejectedException;
import io.github.once.StoreUnavailableException;
import io.github.once.rabbitmq.container.Disposition;
import io.github.once.rabbitmq.internal.Decisions;
import io.github.once.rabbitmq.internal.DeliveryKey;
import io.github.once.spi.Lease;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Every branch of the consumer's policy, without a broker: outcome, attempt and retry policy in, action out. */
class DispositionTest {

    private static final String QUEUE = "orders";
    private static final IdempotencyKey KEY = IdempotencyKey.of(QUEUE, "m-1");
    private static final RetryPolicy RETRY = RetryPolicy.builder().maxAttempts(3)
            .backoff(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(30)).build();

    private final TestClock clock = new TestClock();
    private final Decisions disposition = new Decisions(QUEUE, RETRY, 40, clock);

    private static Delivery delivery(AMQP.BasicProperties props) {
        return new Delivery(new Envelope(7, false, "shop", "order.created"), props,
                "body".getBytes(StandardCharsets.UTF_8));
    }

    private static Delivery plain() {
        return delivery(new AMQP.BasicProperties.Builder().messageId("m-1").headers(Map.of("h", "v")).build());
    }

    private static Delivery request(String replyTo, String correlationId) {
        return delivery(new AMQP.BasicProperties.Builder().messageId("m-1").replyTo(replyTo)
                .correlationId(correlationId).build());
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private IdempotencyRecord completed(byte[] result) {
        return new IdempotencyRecord(KEY, RecordState.COMPLETED, 3, clock.instant(), "ab", result,
                clock.instant().plus(Duration.ofHours(1)));
    }

    private static Object header(Disposition.Move move, String name) {
        return move.properties().getHeaders().get(name);
    }

    // ---- processed and duplicate

    @Test
    void processedWithoutReplyIsAcked() {
        assertThat(disposition.decide(plain(), 1, new Outcome.Processed<>(KEY, null, 3)))
                .isEqualTo(new Disposition.Ack(ConsumerAction.PROCESSED));
        // A result but nowhere to send it.
        assertThat(disposition.decide(plain(), 1, new Outcome.Processed<>(KEY, bytes("r"), 3)))
                .isEqualTo(new Disposition.Ack(ConsumerAction.PROCESSED));
        assertThat(disposition.decide(request("", "c-1"), 1, new Outcome.Processed<>(KEY, bytes("r"), 3)))
                .isEqualTo(new Disposition.Ack(ConsumerAction.PROCESSED));
        // A reply_to but no result.
        assertThat(disposition.decide(request("replies", "c-1"), 1, new Outcome.Processed<>(KEY, null, 3)))
                .isEqualTo(new Disposition.Ack(ConsumerAction.PROCESSED));
    }

    @Test
    void processedRequestSendsItsReplyWithTheCorrelationId() {
        Disposition action = disposition.decide(request("replies", "c-1"), 1,
                new Outcome.Processed<>(KEY, bytes("answer"), 3));
        assertThat(action).isInstanceOf(Disposition.Reply.class);
        Disposition.Reply reply = (Disposition.Reply) action;
        assertThat(reply.action()).isEqualTo(ConsumerAction.PROCESSED);
        assertThat(reply.replyTo()).isEqualTo("replies");
        assertThat(reply.properties().getCorrelationId()).isEqualTo("c-1");
        assertThat(reply.body()).isEqualTo(bytes("answer"));
        // A first reply needs no correlation id.
        assertThat(disposition.decide(request("replies", null), 1, new Outcome.Processed<>(KEY, bytes("a"), 3)))
                .isInstanceOf(Disposition.Reply.class);
    }

    @Test
    void duplicateIsAckedWithoutReply() {
        assertThat(disposition.decide(plain(), 2, new Outcome.Duplicate<>(KEY, null, completed(null))))
                .isEqualTo(new Disposition.Ack(ConsumerAction.DUPLICATE));
        assertThat(disposition.decide(plain(), 1, new Outcome.Duplicate<>(KEY, bytes("r"), completed(bytes("r")))))
                .isEqualTo(new Disposition.Ack(ConsumerAction.DUPLICATE));
    }

    @Test
    void duplicateRequestGetsTheStoredReplyAgainOnlyWithACorrelationId() {
        Disposition again = disposition.decide(request("replies", "c-1"), 1,
                new Outcome.Duplicate<>(KEY, bytes("stored"), completed(bytes("stored"))));
        assertThat(again).isInstanceOf(Disposition.Reply.class);
        Disposition.Reply reply = (Disposition.Reply) again;
        assertThat(reply.action()).isEqualTo(ConsumerAction.DUPLICATE);
        assertThat(reply.body()).isEqualTo(bytes("stored"));
        assertThat(reply.properties().getCorrelationId()).isEqualTo("c-1");
        // Without a correlation id the requester could not tell the re-sent reply from the first: no re-send.
        assertThat(disposition.decide(request("replies", null), 1,
                new Outcome.Duplicate<>(KEY, bytes("stored"), completed(bytes("stored")))))
                .isEqualTo(new Disposition.Ack(ConsumerAction.DUPLICATE));
    }

    // ---- retries that count no attempt

    @Test
    void busyIsRetriedAfterTheOtherLeaseWithoutCountingAnAttempt() {
        Instant leaseUntil = clock.instant().plus(Duration.ofSeconds(3));
        Disposition action = disposition.decide(plain(), 2, new Outcome.Busy<>(KEY, leaseUntil));
        Disposition.Retry retry = (Disposition.Retry) action;
        assertThat(retry.action()).isEqualTo(ConsumerAction.RETRIED_BUSY);
        assertThat(retry.nextAttempt()).isEqualTo(2);
        assertThat(retry.delay()).isEqualTo(Duration.ofSeconds(5)); // the shortest level that outlasts 3 s
        assertThat(retry.queue()).isEqualTo("orders.once.delay.5000");
        assertThat(header(retry, OnceHeaders.ATTEMPT)).isEqualTo(2);
        assertThat(header(retry, "h")).isEqualTo("v");
        assertThat(header(retry, OnceHeaders.ORIGINAL_EXCHANGE)).isEqualTo("shop");
        assertThat(header(retry, OnceHeaders.ORIGINAL_ROUTING_KEY)).isEqualTo("order.created");
        assertThat(retry.properties().getDeliveryMode()).isEqualTo(2);
    }

    @Test
    void busyDelayIsMeasuredWithTheInjectedClock() {
        Instant leaseUntil = clock.instant().plus(Duration.ofSeconds(20));
        assertThat(((Disposition.Retry) disposition.decide(plain(), 1, new Outcome.Busy<>(KEY, leaseUntil))).delay())
                .isEqualTo(Duration.ofSeconds(30));
        clock.advance(Duration.ofSeconds(16)); // 4 s of the lease left
        assertThat(((Disposition.Retry) disposition.decide(plain(), 1, new Outcome.Busy<>(KEY, leaseUntil))).delay())
                .isEqualTo(Duration.ofSeconds(5));
        clock.advance(Duration.ofMinutes(1)); // the lease is over by our clock: the shortest level
        assertThat(((Disposition.Retry) disposition.decide(plain(), 1, new Outcome.Busy<>(KEY, leaseUntil))).delay())
                .isEqualTo(Duration.ofSeconds(1));
        // Longer than every level: the longest.
        Instant far = clock.instant().plus(Duration.ofHours(1));
        assertThat(((Disposition.Retry) disposition.decide(plain(), 1, new Outcome.Busy<>(KEY, far))).delay())
                .isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    void leaseLostIsRetriedAtTheFirstLevelWithoutCountingAnAttempt() {
        Lease lost = new Lease(KEY, 4, clock.instant());
        Disposition.Retry retry = (Disposition.Retry) disposition.decide(plain(), 2, new Outcome.LeaseLost<>(KEY, lost));
        assertThat(retry.action()).isEqualTo(ConsumerAction.RETRIED_LEASE_LOST);
        assertThat(retry.nextAttempt()).isEqualTo(2);
        assertThat(retry.delay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(retry.queue()).isEqualTo("orders.once.delay.1000");
        assertThat(header(retry, OnceHeaders.ATTEMPT)).isEqualTo(2);
    }

    @Test
    void requeueTailStrategyRetriesOnTheWorkQueueItself() {
        Decisions tail = new Decisions(QUEUE, RetryPolicy.from(RETRY).strategy(RetryPolicy.Strategy.REQUEUE_TAIL).build(),
                40, clock);
        Disposition.Retry busy = (Disposition.Retry) tail.decide(plain(), 1,
                new Outcome.Busy<>(KEY, clock.instant().plusSeconds(3)));
        assertThat(busy.queue()).isEqualTo(QUEUE);
        Disposition.Retry failed = (Disposition.Retry) tail.decide(plain(), 1,
                new Outcome.Failed<>(KEY, new IllegalStateException("x")));
        assertThat(failed.queue()).isEqualTo(QUEUE);
        assertThat(failed.nextAttempt()).isEqualTo(2);
    }

    // ---- failures

    @Test
    void failureBelowMaxAttemptsIsRetriedWithBackOffAndTheAttemptRaised() {
        Disposition.Retry first = (Disposition.Retry) disposition.decide(plain(), 1,
                new Outcome.Failed<>(KEY, new IllegalStateException("boom")));
        assertThat(first.action()).isEqualTo(ConsumerAction.RETRIED_FAILED);
        assertThat(first.nextAttempt()).isEqualTo(2);
        assertThat(first.delay()).isEqualTo(Duration.ofSeconds(1));
        assertThat(first.queue()).isEqualTo("orders.once.delay.1000");
        assertThat(header(first, OnceHeaders.ATTEMPT)).isEqualTo(2);
        assertThat(header(first, OnceHeaders.ERROR)).isNull();

        Disposition.Retry second = (Disposition.Retry) disposition.decide(delivery(first.properties()), 2, new Outcome.Failed<>(KEY, new IllegalStateException("boom")));
        assertThat(second.nextAttempt()).isEqualTo(3);
        assertThat(second.delay()).isEqualTo(Duration.ofSeconds(5));
        assertThat(header(second, OnceHeaders.ATTEMPT)).isEqualTo(3);
        // Moved twice, the first origin is kept.
        assertThat(header(second, OnceHeaders.ORIGINAL_EXCHANGE)).isEqualTo("shop");
    }

    @Test
    void failureAtMaxAttemptsIsDeadLetteredWithItsCause() {
        Disposition action = disposition.decide(plain(), 3,
                new Outcome.Failed<>(KEY, new IllegalStateException("boom, and a long message that is cut")));
        Disposition.DeadLetter dead = (Disposition.DeadLetter) action;
        assertThat(dead.action()).isEqualTo(ConsumerAction.DEAD_LETTERED);
        assertThat(dead.reason()).isEqualTo(DeadLetterReason.MAX_ATTEMPTS);
        assertThat(dead.attempts()).isEqualTo(3);
        assertThat(dead.queue()).isEqualTo("orders.once.dlq");
        assertThat(header(dead, OnceHeaders.REASON)).isEqualTo("max-attempts");
        assertThat(header(dead, OnceHeaders.ATTEMPTS)).isEqualTo(3);
        assertThat(header(dead, OnceHeaders.QUEUE)).isEqualTo(QUEUE);
        assertThat(header(dead, OnceHeaders.ERROR)).isEqualTo("java.lang.IllegalStateException: boom...");
        assertThat(header(dead, OnceHeaders.ORIGINAL_ROUTING_KEY)).isEqualTo("order.created");
    }

    @Test
    void failureBeyondMaxAttemptsIsDeadLetteredToo() {
        // A copy whose attempt header says more than the policy allows now (the policy was lowered).
        assertThat(disposition.decide(plain(), 9, new Outcome.Failed<>(KEY, new RuntimeException())))
                .isInstanceOf(Disposition.DeadLetter.class);
        Decisions once = new Decisions(QUEUE, RetryPolicy.from(RETRY).maxAttempts(1).build(), 40, clock);
        assertThat(once.decide(plain(), 1, new Outcome.Failed<>(KEY, new RuntimeException())))
                .isInstanceOf(Disposition.DeadLetter.class);
    }

    // ---- never processed

    @Test
    void conflictIsDeadLetteredWithoutErrorSayingWhichFingerprintsDiffer() {
        Disposition.DeadLetter dead = (Disposition.DeadLetter) disposition.decide(plain(), 1,
                new Outcome.Conflict<>(KEY, completed(null), "cd"));
        assertThat(dead.reason()).isEqualTo(DeadLetterReason.CONFLICT);
        assertThat(dead.error()).isNull();
        assertThat(header(dead, OnceHeaders.REASON)).isEqualTo("conflict");
        assertThat(header(dead, OnceHeaders.ERROR)).isNull();
        assertThat(header(dead, OnceHeaders.ATTEMPTS)).isEqualTo(1);
        assertThat(dead.detail()).isEqualTo("the key was recorded with payload fingerprint ab; this message's is cd");
        assertThat(header(dead, OnceHeaders.DETAIL)).isEqualTo(dead.detail());
    }

    @Test
    void missingOrInvalidKeyIsDeadLetteredWithTheReason() {
        Disposition.DeadLetter missing = (Disposition.DeadLetter) disposition.keyless(plain(), 1,
                new DeliveryKey.Keyless(DeadLetterReason.MISSING_KEY, "body field order_id is absent"));
        assertThat(missing.action()).isEqualTo(ConsumerAction.DEAD_LETTERED);
        assertThat(missing.queue()).isEqualTo("orders.once.dlq");
        assertThat(missing.detail()).isEqualTo("body field order_id is absent");
        assertThat(header(missing, OnceHeaders.REASON)).isEqualTo("missing-key");
        assertThat(header(missing, OnceHeaders.DETAIL)).isEqualTo("body field order_id is absent");
        assertThat(header(missing, OnceHeaders.ATTEMPTS)).isEqualTo(1);
        Disposition.DeadLetter invalid = (Disposition.DeadLetter) disposition.keyless(plain(), 2,
                new DeliveryKey.Keyless(DeadLetterReason.INVALID_KEY, "namespace too long"));
        assertThat(header(invalid, OnceHeaders.REASON)).isEqualTo("invalid-key");
        assertThat(header(invalid, OnceHeaders.DETAIL)).isEqualTo("namespace too long");
        assertThat(invalid.attempts()).isEqualTo(2);
    }

    @Test
    void crashLoopIsDeadLetteredAtOnceWithItsReason() {
        Disposition.DeadLetter dead = (Disposition.DeadLetter) disposition.decide(plain(), 1,
                new Outcome.CrashLoop<>(KEY, 3));
        assertThat(dead.reason()).isEqualTo(DeadLetterReason.CRASH_LOOP);
        assertThat(header(dead, OnceHeaders.REASON)).isEqualTo("crash-loop");
        assertThat(dead.queue()).isEqualTo("orders.once.dlq");
    }

    @Test
    void aRejectedRecordIsDeadLetteredOnTheFirstAttemptWithTheError() {
        StoreRejectedException rejected = new StoreRejectedException("too big", KEY);
        Disposition.DeadLetter dead = (Disposition.DeadLetter) disposition.decide(plain(), 1,
                new Outcome.Failed<>(KEY, rejected));
        assertThat(dead.reason()).isEqualTo(DeadLetterReason.STORE_REJECTED);
        assertThat(dead.error()).isSameAs(rejected);
        assertThat(header(dead, OnceHeaders.REASON)).isEqualTo("store-rejected");
        assertThat(header(dead, OnceHeaders.ERROR).toString()).startsWith("io.github.once.StoreRejectedException");
    }

    @Test
    void aQuorumCopyReturnedTooOftenIsACrashLoop() {
        // Threshold 3 (the executor's default) plus the retry budget (3 attempts): 6 returns.
        Delivery five = delivery(new AMQP.BasicProperties.Builder().headers(Map.of("x-delivery-count", 5L)).build());
        Delivery six = delivery(new AMQP.BasicProperties.Builder().headers(Map.of("x-delivery-count", 6L)).build());
        assertThat(disposition.redeliveredTooOften(plain(), 1)).isNull();
        assertThat(disposition.redeliveredTooOften(five, 1)).isNull();
        Disposition.DeadLetter dead = (Disposition.DeadLetter) disposition.redeliveredTooOften(six, 1);
        assertThat(dead.reason()).isEqualTo(DeadLetterReason.CRASH_LOOP);
        assertThat(dead.error().getMessage()).contains("x-delivery-count 6");
        Decisions strict = new Decisions(QUEUE, RETRY, 200, clock, 1);
        assertThat(strict.redeliveredTooOften(delivery(new AMQP.BasicProperties.Builder()
                .headers(Map.of("x-delivery-count", 4L)).build()), 1)).isInstanceOf(Disposition.DeadLetter.class);
    }

    @Test
    void storeUnavailableGivesTheDeliveryBackAndPauses() {
        StoreUnavailableException down = new StoreUnavailableException("redis down", null);
        Disposition action = disposition.storeFailed(down);
        assertThat(action).isEqualTo(new Disposition.Requeue(down));
        assertThat(action.action()).isEqualTo(ConsumerAction.REQUEUED);
    }

    @Test
    void theOriginalDeliveryIsNeverChanged() {
        // The copies get new header maps; the delivery's own stays as it came.
        Delivery d = plain();
        disposition.decide(d, 1, new Outcome.Failed<>(KEY, new IllegalStateException("x")));
        disposition.keyless(d, 1, new DeliveryKey.Keyless(DeadLetterReason.MISSING_KEY, "why"));
        assertThat(d.getProperties().getHeaders()).containsOnlyKeys("h");
    }
}
