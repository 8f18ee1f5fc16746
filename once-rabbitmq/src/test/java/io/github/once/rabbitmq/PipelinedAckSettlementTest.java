package io.github.once.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.NoOpMetricsCollector;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.IdempotentExecutor;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.RecordState;
import io.github.once.Task;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A pipelined consumer never acks a delivery before its completion is recorded: at the moment each ack frame goes
 * out (the client's metrics hook, on the consumer's thread), every delivery it covers, one or a multiple ack's
 * whole run, must have a completed record in the store, or have had a retry copy sent (acked once confirmed). Checked while messages flow, when the channel closes with
 * deliveries in the pipeline, and when the store goes away mid-pipeline. The store is the in-memory one, answering
 * its asynchronous calls on a thread of its own as a networked store does, so calls really are in flight while
 * handlers run.
 */
class PipelinedAckSettlementTest {

    private static final RetryPolicy FAST = ConsumerScenariosContract.FAST;

    private RabbitFixture rabbit;
    private final InMemoryVariant variant = new InMemoryVariant();
    private final SeparateThreadStore store = new SeparateThreadStore(variant.store);
    private final AckWatch acks = new AckWatch();
    private final AtomicReference<OnceConsumer> consumer = new AtomicReference<>();

    @BeforeEach
    void setUp() {
        rabbit = new RabbitFixture();
        rabbit.remember(FAST);
    }

    @AfterEach
    void tearDown() throws Exception {
        try {
            rabbit.close();
        } finally {
            store.close();
        }
    }

    /**
     * Checks every ack as it is sent. Tags are per channel: the deliveries outstanding on each channel come from
     * the client's hook, their message ids from the consumer's listener; a new channel with a reused number
     * starts afresh.
     */
    final class AckWatch extends NoOpMetricsCollector {
        final AtomicInteger single = new AtomicInteger();
        final AtomicInteger multiple = new AtomicInteger();
        final AtomicInteger covered = new AtomicInteger();
        final List<String> early = new CopyOnWriteArrayList<>();
        private final Map<Integer, NavigableSet<Long>> outstanding = new ConcurrentHashMap<>();
        private final Map<Integer, Map<Long, String>> ids = new ConcurrentHashMap<>();
        private final Map<Integer, Set<Long>> moved = new ConcurrentHashMap<>();

        @Override
        public void newChannel(Channel channel) {
            outstanding.remove(channel.getChannelNumber());
            ids.remove(channel.getChannelNumber());
            moved.remove(channel.getChannelNumber());
        }

        /** A delivery to a consumer (the other overload is for {@code basic.get}). */
        @Override
        public void consumedMessage(Channel channel, long deliveryTag, String consumerTag) {
            outstanding.computeIfAbsent(channel.getChannelNumber(), n -> new ConcurrentSkipListSet<>()).add(deliveryTag);
        }

        /** The consumer took a delivery in hand on its current channel. */
        void delivered(Delivery delivery) {
            ids.computeIfAbsent(channelNow(), n -> new ConcurrentHashMap<>())
                    .put(delivery.getEnvelope().getDeliveryTag(), delivery.getProperties().getMessageId());
        }

        /** The consumer sent a copy of a delivery (a retry): its ack, once the copy is confirmed, needs no record. */
        void moved(Delivery delivery) {
            moved.computeIfAbsent(channelNow(), n -> ConcurrentHashMap.newKeySet())
                    .add(delivery.getEnvelope().getDeliveryTag());
        }

        private int channelNow() {
            return consumer.get().workers().get(0).channel().getChannelNumber();
        }

        @Override
        public void basicAck(Channel channel, long deliveryTag, boolean multi) {
            (multi ? multiple : single).incrementAndGet();
            NavigableSet<Long> open = outstanding.getOrDefault(channel.getChannelNumber(), new ConcurrentSkipListSet<>());
            List<Long> tags = multi ? new ArrayList<>(open.headSet(deliveryTag, true)) : List.of(deliveryTag);
            Map<Long, String> byTag = ids.getOrDefault(channel.getChannelNumber(), Map.of());
            Set<Long> copies = moved.getOrDefault(channel.getChannelNumber(), Set.of());
            for (long tag : tags) {
                covered.incrementAndGet();
                String id = byTag.get(tag);
                if (id == null || !(recorded(id) || copies.contains(tag))) {
                    early.add(id + " (tag " + tag + (multi ? ", in a multiple ack to " + deliveryTag : "") + ")");
                }
                open.remove(tag);
            }
        }

        /** A delivery given back (the client calls this overload; the metrics base ignores it). */
        @Override
        public void basicNack(Channel channel, long deliveryTag, boolean multi) {
            NavigableSet<Long> open = outstanding.getOrDefault(channel.getChannelNumber(), new ConcurrentSkipListSet<>());
            if (multi) {
                open.headSet(deliveryTag, true).clear();
            } else {
                open.remove(deliveryTag);
            }
        }

        @Override
        public void basicReject(Channel channel, long deliveryTag, boolean requeue) {
            basicNack(channel, deliveryTag, false);
        }
    }

    private boolean recorded(String id) {
        return variant.store.find(IdempotencyKey.of(rabbit.queue, id)).map(IdempotencyRecord::state)
                .orElse(null) == RecordState.COMPLETED;
    }

    /** Hears each delivery for the watch, besides counting. */
    private RecordingListener listener() {
        return new RecordingListener() {
            @Override
            public void onDelivery(Delivery delivery, int attempt) {
                super.onDelivery(delivery, attempt);
                acks.delivered(delivery);
            }

            @Override
            public void onRetry(Delivery delivery, IdempotencyKey key, ConsumerAction action, int nextAttempt,
                                Duration delay) {
                super.onRetry(delivery, key, action, nextAttempt, delay);
                acks.moved(delivery);
            }
        };
    }

    private Connection watched() throws Exception {
        ConnectionFactory f = RabbitFixture.factory();
        f.setMetricsCollector(acks);
        Connection c = f.newConnection("once-test-pipelined-acks");
        rabbit.track(c::abort);
        return c;
    }

    private OnceConsumer start(RecordingListener listener, OnceListener executorListener, MessageHandler handler)
            throws Exception {
        Idempotency executor = rabbit.track(Idempotency.builder(store)
                .config(StoreVariant.config(Duration.ofSeconds(1))).listener(executorListener).build());
        OnceConsumer built = OnceConsumer.builder(watched(), rabbit.queue, executor)
                .pipelined(true)
                .prefetch(50)
                .retry(FAST)
                .topology(Topology.declareAll(QueueType.CLASSIC))
                .storeBackoff(Duration.ofMillis(100), Duration.ofMillis(400))
                .shutdownTimeout(Duration.ofSeconds(5))
                .listener(listener)
                .handler(handler)
                .build();
        consumer.set(built);
        return rabbit.track(built.start());
    }

    private void publish(int n, String prefix) throws Exception {
        AckSettlementTest.publish(rabbit, n, prefix);
    }

    private void awaitQuiet(OnceConsumer c) {
        await().atMost(Duration.ofSeconds(20)).until(() -> rabbit.allEmpty(FAST) && c.inFlight() == 0);
    }

    @Test
    void everyAckAndEveryMultipleAckCoversOnlyRecordedCompletions() throws Exception {
        RecordingListener listener = listener();
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
    void aChannelClosedMidPipelineAcksNothingUnrecordedAndNothingStale() throws Exception {
        RecordingListener listener = listener();
        AtomicBoolean closed = new AtomicBoolean();
        AtomicInteger inHandAtClose = new AtomicInteger();
        OnceConsumer c = start(listener, OnceListener.NONE, (d, ctx) -> {
            if (ctx.key().id().equals("close-100") && closed.compareAndSet(false, true)) {
                inHandAtClose.set(consumer.get().inFlight());
                consumer.get().workers().get(0).channel().close();
            }
            variant.effect(ctx.key().id(), ctx);
        });
        publish(300, "close-");

        await().atMost(Duration.ofSeconds(30)).until(() -> variant.distinctEffects() == 300);
        awaitQuiet(c);
        assertThat(closed.get()).isTrue();
        // Deliveries behind the closing one were claimed or waiting in the pipeline when their channel went.
        assertThat(inHandAtClose.get()).isGreaterThan(1);
        assertThat(acks.early).as("deliveries acked before their completion was recorded").isEmpty();
        assertThat(variant.ledger.doubled()).isEmpty();
        // Work done for the closed channel's deliveries was recorded, not acked; their redeliveries were duplicates.
        assertThat(listener.count(ConsumerAction.ABANDONED)).isPositive();
        assertThat(listener.count(ConsumerAction.DUPLICATE)).isPositive();
        assertThat(listener.count(ConsumerAction.DEAD_LETTERED)).isZero();
    }

    @Test
    void aStoreGoneMidPipelineAcksNothingUnrecordedAndRequeuesTheRest() throws Exception {
        RecordingListener listener = listener();
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

    @Test
    void theBuilderRefusesPipelinedModeForAnExecutorThatCannotPipeline() throws Exception {
        Connection connection = rabbit.connect();
        IdempotentExecutor wrapper = new IdempotentExecutor() {
            @Override
            public <T> Outcome<T> execute(Task<T> task) {
                throw new UnsupportedOperationException();
            }

            @Override
            public String toString() {
                return "a wrapping executor";
            }
        };
        OnceConsumer.Builder builder = OnceConsumer.builder(connection, rabbit.queue, wrapper)
                .pipelined(true).handler((d, ctx) -> { });
        assertThatThrownBy(builder::build)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pipelined(true) needs an Idempotency")
                .hasMessageContaining("a wrapping executor");
    }
}
