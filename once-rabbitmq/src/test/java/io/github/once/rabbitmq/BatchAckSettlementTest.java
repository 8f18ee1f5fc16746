package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceListener;
import io.github.once.RecordState;
import io.github.once.testkit.StoreCalls;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A consumer with batch claims never acks a delivery before its completion is recorded: at the moment each ack
 * frame goes out (the client's metrics hook, on the consumer's thread), every delivery it covers, one or a multiple
 * ack's whole run, must have a completed record in the store, or have had a retry copy sent (acked once
 * confirmed). Checked while messages flow, when the channel closes with a batch in hand, and when the store goes
 * away in the middle of a batch.
 */
class BatchAckSettlementTest {

    private static final RetryPolicy FAST = ConsumerScenariosContract.FAST;

    private RabbitFixture rabbit;
    private final InMemoryVariant variant = new InMemoryVariant();
    private final CuttableStore store = new CuttableStore(variant.store);
    private final AckWatch acks = new AckWatch(this::recorded);

    @BeforeEach
    void setUp() {
        rabbit = new RabbitFixture();
        rabbit.remember(FAST);
    }

    @AfterEach
    void tearDown() throws Exception {
        rabbit.close();
    }

    private boolean recorded(String id) {
        return StoreCalls.find(variant.store, IdempotencyKey.of(rabbit.queue, id)).map(IdempotencyRecord::state)
                .orElse(null) == RecordState.COMPLETED;
    }

    private OnceConsumer start(RecordingListener listener, OnceListener executorListener, MessageHandler handler)
            throws Exception {
        Idempotency executor = rabbit.track(Idempotency.builder(store)
                .config(StoreVariant.config(Duration.ofSeconds(1))).listener(executorListener).build());
        return acks.startBatched(rabbit, executor, listener, handler, b -> b);
    }

    private void publish(int n, String prefix) throws Exception {
        AckSettlementTest.publish(rabbit, n, prefix);
    }

    private void awaitQuiet(OnceConsumer c) {
        assertThat(c).isSameAs(acks.consumer());
        acks.awaitQuiet(rabbit);
    }

    @Test
    void everyAckAndEveryMultipleAckCoversOnlyRecordedCompletions() throws Exception {
        RecordingListener listener = acks.listener();
        OnceConsumer c = start(listener, OnceListener.NONE, (d, ctx) -> variant.effect(ctx.key().id(), ctx));
        publish(500, "flow-");

        await().atMost(Duration.ofSeconds(30)).until(() -> listener.count(ConsumerAction.PROCESSED) == 500);
        awaitQuiet(c);
        assertThat(acks.early).as("deliveries acked before their completion was recorded").isEmpty();
        assertThat(acks.covered.get()).as("deliveries covered by acks").isEqualTo(500);
        assertThat(acks.multiple.get()).as("multiple acks").isPositive();
        assertThat(acks.single.get() + acks.multiple.get()).as("ack frames for 500 deliveries").isLessThan(500);
        assertThat(variant.ledger.doubled()).isEmpty();
        assertThat(variant.distinctEffects()).isEqualTo(500);
    }

    @Test
    void aChannelClosedWithABatchInHandAcksNothingUnrecordedAndNothingStale() throws Exception {
        RecordingListener listener = acks.listener();
        AtomicBoolean closed = new AtomicBoolean();
        AtomicInteger inHandAtClose = new AtomicInteger();
        OnceConsumer c = start(listener, OnceListener.NONE, (d, ctx) -> {
            if (ctx.key().id().equals("close-100") && closed.compareAndSet(false, true)) {
                // Close with deliveries behind this one in hand (they arrive while it waits; the publisher has
                // 199 more to send, or the queue holds them), whether or not the consumer had caught up.
                await().atMost(Duration.ofSeconds(10)).until(() -> acks.consumer().inFlight() > 1);
                inHandAtClose.set(acks.consumer().inFlight());
                acks.consumer().workers().get(0).channel().close();
            }
            variant.effect(ctx.key().id(), ctx);
        });
        publish(300, "close-");

        await().atMost(Duration.ofSeconds(30)).until(() -> variant.distinctEffects() == 300);
        awaitQuiet(c);
        assertThat(closed.get()).isTrue();
        // Deliveries behind the closing one were claimed or waiting in hand when their channel went.
        assertThat(inHandAtClose.get()).isGreaterThan(1);
        assertThat(acks.early).as("deliveries acked before their completion was recorded").isEmpty();
        assertThat(variant.ledger.doubled()).isEmpty();
        // Work done for the closed channel's deliveries was recorded, not acked; their redeliveries were duplicates.
        assertThat(listener.count(ConsumerAction.ABANDONED)).isPositive();
        assertThat(listener.count(ConsumerAction.DUPLICATE)).isPositive();
        assertThat(listener.count(ConsumerAction.DEAD_LETTERED)).isZero();
    }

    @Test
    void aStoreGoneInTheMiddleOfABatchAcksNothingUnrecordedAndRequeuesTheRest() throws Exception {
        RecordingListener listener = acks.listener();
        AtomicBoolean cut = new AtomicBoolean();
        UnrecordedCompletions unrecorded = new UnrecordedCompletions();
        OnceConsumer c = start(listener, unrecorded, (d, ctx) -> {
            if (ctx.key().id().equals("cut-100") && cut.compareAndSet(false, true)) {
                store.cut(); // claims and completions in flight or to come fail from here on
            }
            variant.effect(ctx.key().id(), ctx);
        });
        publish(300, "cut-");

        await().atMost(Duration.ofSeconds(30)).until(() -> cut.get() && c.isPaused());
        await().atMost(Duration.ofSeconds(20)).until(() -> listener.pauses.get() >= 2);
        long effectsDuringOutage = variant.totalEffects();
        await().atMost(Duration.ofSeconds(5)).until(() -> listener.pauses.get() >= 3);
        assertThat(variant.totalEffects()).as("no handler runs without a claim").isEqualTo(effectsDuringOutage);
        store.restore();

        await().atMost(Duration.ofSeconds(60)).until(() -> variant.distinctEffects() == 300);
        awaitQuiet(c);
        assertThat(acks.early).as("deliveries acked before their completion was recorded").isEmpty();
        assertThat(listener.count(ConsumerAction.REQUEUED)).isPositive();
        assertThat(listener.resumes.get()).isPositive();
        // Only a handler whose completion was not recorded (the call failed, or came after its lease lapsed while
        // no renewal could reach the store) may have run again.
        assertThat(variant.totalEffects() - 300).as("repeats, allowed: %s", unrecorded)
                .isLessThanOrEqualTo(unrecorded.count());
        assertThat(listener.count(ConsumerAction.DEAD_LETTERED)).isZero();
    }
}
