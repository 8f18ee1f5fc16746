package io.github.once.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.NoOpMetricsCollector;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

import static org.awaitility.Awaitility.await;

/**
 * Checks every ack of a one-channel consumer as the client sends it: each delivery it covers (a multiple ack's
 * whole run) must be recorded by then, or be one whose copy was sent (a retry). Tags are per channel: the
 * deliveries outstanding on each channel come from the client's hook, their message ids from the consumer's
 * listener; a new channel with a reused number starts afresh.
 */
final class AckWatch extends NoOpMetricsCollector {
    final AtomicInteger single = new AtomicInteger();
    final AtomicInteger multiple = new AtomicInteger();
    final AtomicInteger covered = new AtomicInteger();
    /** Deliveries acked before they were recorded: must stay empty. */
    final List<String> early = new CopyOnWriteArrayList<>();
    private final AtomicReference<OnceConsumer> consumer = new AtomicReference<>();
    private final Predicate<String> recorded;
    private final Map<Integer, NavigableSet<Long>> outstanding = new ConcurrentHashMap<>();
    private final Map<Integer, Map<Long, String>> ids = new ConcurrentHashMap<>();
    private final Map<Integer, Set<Long>> moved = new ConcurrentHashMap<>();

    /** @param recorded whether a message id's record is completed (and, in a transaction, committed) now */
    AckWatch(Predicate<String> recorded) {
        this.recorded = recorded;
    }

    /** The consumer watched, once started. */
    OnceConsumer consumer() {
        return consumer.get();
    }

    /**
     * Starts the watched consumer: batch claims, on one channel of a watched connection, with fast retries and
     * short back-offs; {@code more} adds the test's own settings.
     */
    OnceConsumer startBatched(RabbitFixture rabbit, Idempotency executor, RecordingListener listener,
                                MessageHandler handler, UnaryOperator<OnceConsumer.Builder> more) throws Exception {
        OnceConsumer built = more.apply(OnceConsumer.builder(connection(rabbit), rabbit.queue, executor)
                        .batchClaims(true)
                        .prefetch(50)
                        .retry(ConsumerScenariosContract.FAST)
                        .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                        .storeBackoff(Duration.ofMillis(100), Duration.ofMillis(400))
                        .shutdownTimeout(Duration.ofSeconds(5))
                        .listener(listener)
                        .handler(handler))
                .build();
        consumer.set(built);
        return rabbit.track(built.start());
    }

    /** Waits until every queue of the test is empty and the consumer holds no delivery. */
    void awaitQuiet(RabbitFixture rabbit) {
        await().atMost(Duration.ofSeconds(20))
                .until(() -> rabbit.allEmpty(ConsumerScenariosContract.FAST) && consumer.get().inFlight() == 0);
    }

    /** A connection whose acks this watch checks, aborted when {@code rabbit} closes. */
    Connection connection(RabbitFixture rabbit) throws Exception {
        ConnectionFactory f = RabbitFixture.factory();
        f.setMetricsCollector(this);
        Connection c = f.newConnection("once-test-watched-acks");
        rabbit.track(c::abort);
        return c;
    }

    /** A listener that hears each delivery and each retry for this watch, besides counting. */
    RecordingListener listener() {
        return new RecordingListener() {
            @Override
            public void onDelivery(Delivery delivery, int attempt) {
                super.onDelivery(delivery, attempt);
                delivered(delivery);
            }

            @Override
            public void onRetry(Delivery delivery, IdempotencyKey key, ConsumerAction action, int nextAttempt,
                                Duration delay, Throwable error) {
                super.onRetry(delivery, key, action, nextAttempt, delay, error);
                moved(delivery);
            }
        };
    }

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
    private void delivered(Delivery delivery) {
        ids.computeIfAbsent(channelNow(), n -> new ConcurrentHashMap<>())
                .put(delivery.getEnvelope().getDeliveryTag(), delivery.getProperties().getMessageId());
    }

    /** The consumer sent a copy of a delivery (a retry): its ack, once the copy is confirmed, needs no record. */
    private void moved(Delivery delivery) {
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
            if (id == null || !(recorded.test(id) || copies.contains(tag))) {
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
