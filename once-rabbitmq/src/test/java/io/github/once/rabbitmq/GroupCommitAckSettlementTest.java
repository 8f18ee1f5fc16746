package io.github.once.rabbitmq;

import io.github.once.Idempotency;
import io.github.once.IdempotentExecutor;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Acks of a pipelined consumer in transactional mode (group commit) on PostgreSQL: at the moment each ack frame goes
 * out, every delivery it covers has its completed record committed, read through a connection of the test's own
 * (which sees committed rows only). Under flow, and with the channel closed mid-pipeline.
 */
class GroupCommitAckSettlementTest {

    private static final RetryPolicy FAST = ConsumerScenariosContract.FAST;

    private RabbitFixture rabbit;
    private JdbcTransactionalVariant variant;
    private final AckWatch acks = new AckWatch(id -> variant.committed(rabbit.queue, id));

    @BeforeEach
    void setUp() throws Exception {
        rabbit = new RabbitFixture();
        rabbit.remember(FAST);
        variant = new JdbcTransactionalVariant();
    }

    @AfterEach
    void tearDown() throws Exception {
        try {
            rabbit.close();
        } finally {
            variant.close();
        }
    }

    private OnceConsumer start(RecordingListener listener, MessageHandler handler) throws Exception {
        IdempotentExecutor executor = variant.executor(Duration.ofSeconds(5));
        assertThat(executor).isInstanceOf(Idempotency.class);
        return acks.startPipelined(rabbit, executor, listener, handler, b -> b.maxBatch(10));
    }

    @Test
    void everyAckCoversOnlyDeliveriesWhoseRecordIsCommitted() throws Exception {
        RecordingListener listener = acks.listener();
        start(listener, (d, ctx) -> variant.effect(ctx.key().id(), ctx));
        AckSettlementTest.publish(rabbit, 300, "gc-");

        await().atMost(Duration.ofSeconds(30)).until(() -> listener.count(ConsumerAction.PROCESSED) == 300);
        acks.awaitQuiet(rabbit);
        assertThat(acks.early).as("deliveries acked before their record was committed").isEmpty();
        assertThat(acks.covered.get()).as("deliveries covered by acks").isEqualTo(300);
        assertThat(acks.multiple.get()).as("multiple acks").isPositive();
        assertThat(variant.totalEffects()).isEqualTo(300);
        assertThat(variant.distinctEffects()).isEqualTo(300);
    }

    @Test
    void aChannelClosedMidPipelineAcksNothingUncommittedAndEveryEffectStaysSingle() throws Exception {
        RecordingListener listener = acks.listener();
        AtomicBoolean closed = new AtomicBoolean();
        AtomicInteger inHandAtClose = new AtomicInteger();
        start(listener, (d, ctx) -> {
            if (ctx.key().id().equals("gc-close-100") && closed.compareAndSet(false, true)) {
                // Close with deliveries behind this one in hand (they arrive while it waits; the publisher has
                // 199 more to send, or the queue holds them), whether or not the consumer had caught up.
                await().atMost(Duration.ofSeconds(10)).until(() -> acks.consumer().inFlight() > 1);
                inHandAtClose.set(acks.consumer().inFlight());
                acks.consumer().workers().get(0).channel().close();
            }
            variant.effect(ctx.key().id(), ctx);
        });
        AckSettlementTest.publish(rabbit, 300, "gc-close-");

        await().atMost(Duration.ofSeconds(30)).until(() -> variant.distinctEffects() == 300);
        acks.awaitQuiet(rabbit);
        assertThat(closed.get()).isTrue();
        assertThat(inHandAtClose.get()).isGreaterThan(1);
        assertThat(acks.early).as("deliveries acked before their record was committed").isEmpty();
        assertThat(variant.totalEffects()).as("effects, one per message").isEqualTo(300);
        // Work committed for the closed channel's deliveries was not acked; their redeliveries were duplicates.
        assertThat(listener.count(ConsumerAction.ABANDONED)).isPositive();
        assertThat(listener.count(ConsumerAction.DUPLICATE)).isPositive();
        assertThat(listener.count(ConsumerAction.DEAD_LETTERED)).isZero();
    }
}
