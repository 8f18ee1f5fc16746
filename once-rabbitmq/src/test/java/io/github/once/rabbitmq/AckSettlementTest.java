package io.github.once.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.NoOpMetricsCollector;

import io.github.once.Idempotency;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * When and how deliveries are acked, seen through the client's own metrics hook on the consumer's connection: one
 * at a time, each delivery is acked before the next one's claim; with batch claims, a run of processed deliveries
 * is acked with one multiple ack, which never covers a delivery whose moved copy is still unconfirmed.
 */
class AckSettlementTest {

    private RabbitFixture rabbit;
    private final InMemoryVariant variant = new InMemoryVariant();
    private final AckCounter acks = new AckCounter();

    @BeforeEach
    void setUp() {
        rabbit = new RabbitFixture();
        rabbit.remember(ConsumerScenariosContract.FAST);
    }

    @AfterEach
    void tearDown() throws Exception {
        rabbit.close();
    }

    /** Counts the acks the client sends on a connection, single and multiple. */
    static final class AckCounter extends NoOpMetricsCollector {
        final AtomicInteger single = new AtomicInteger();
        final AtomicInteger multiple = new AtomicInteger();

        @Override
        public void basicAck(Channel channel, long deliveryTag, boolean multi) {
            (multi ? multiple : single).incrementAndGet();
        }
    }

    /** The store, watched at each claim: every delivery claimed before must have been acked by then. */
    static final class ClaimWatchingStore extends ForwardingStore {
        final AtomicInteger claims = new AtomicInteger();
        final AtomicInteger late = new AtomicInteger();
        private final AckCounter acks;

        ClaimWatchingStore(IdempotencyStore store, AckCounter acks) {
            super(store);
            this.acks = acks;
        }

        @Override
        public List<ClaimResult> claim(List<ClaimRequest> requests) {
            if (acks.single.get() + acks.multiple.get() != claims.getAndIncrement()) {
                late.incrementAndGet();
            }
            return store.claim(requests);
        }
    }

    private Connection counted() throws Exception {
        ConnectionFactory f = RabbitFixture.factory();
        f.setMetricsCollector(acks);
        Connection c = f.newConnection("once-test-acks");
        rabbit.track(c::abort);
        return c;
    }

    private Idempotency executor() {
        return rabbit.track(variant.executor(Duration.ofSeconds(1)));
    }

    private void publish(int n, String prefix) throws Exception {
        publish(rabbit, n, prefix);
    }

    /** Publishes {@code n} messages to the fixture's queue, with ids {@code prefix0} and on. */
    static void publish(RabbitFixture rabbit, int n, String prefix) throws Exception {
        List<OutboundMessage> batch = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            batch.add(OutboundMessage.of("", rabbit.queue, ("body " + i).getBytes(StandardCharsets.UTF_8))
                    .withMessageId(prefix + i));
        }
        try (OncePublisher publisher = OncePublisher.builder(rabbit.connect()).build()) {
            publisher.publishAll(batch);
        }
    }

    @Test
    void oneAtATimeEachDeliveryIsAckedBeforeTheNextClaim() throws Exception {
        rabbit.admin().queueDeclare(rabbit.queue, true, false, false, null);
        publish(50, "each-");
        RecordingListener listener = new RecordingListener();
        ClaimWatchingStore watched = new ClaimWatchingStore(variant.store, acks);
        Idempotency executor = rabbit.track(Idempotency.builder(watched)
                .config(StoreVariant.config(Duration.ofSeconds(1))).build());
        rabbit.track(OnceConsumer.builder(counted(), rabbit.queue, executor)
                .prefetch(50)
                .batchClaims(false)
                .topology(Topology.none())
                .listener(listener)
                .handler((d, ctx) -> variant.effect(ctx.key().id(), ctx))
                .build().start());

        await().atMost(Duration.ofSeconds(20)).until(() -> listener.count(ConsumerAction.PROCESSED) == 50);
        assertThat(watched.claims.get()).isEqualTo(50);
        assertThat(watched.late.get()).as("claims made before the previous delivery's ack").isZero();
        assertThat(acks.single.get()).isEqualTo(50);
        assertThat(variant.ledger.doubled()).isEmpty();
        assertThat(variant.distinctEffects()).isEqualTo(50);
        await().atMost(Duration.ofSeconds(10)).until(() -> rabbit.messageCount(rabbit.queue) == 0);
    }

    @Test
    void batchOfProcessedDeliveriesIsAckedWithOneMultipleAck() throws Exception {
        rabbit.admin().queueDeclare(rabbit.queue, true, false, false, null);
        publish(300, "batch-");
        RecordingListener listener = new RecordingListener();
        OnceConsumer consumer = rabbit.track(OnceConsumer.builder(counted(), rabbit.queue, executor())
                .prefetch(100)
                .batchClaims(true)
                .topology(Topology.none())
                .listener(listener)
                .handler((d, ctx) -> variant.effect(ctx.key().id(), ctx))
                .build().start());

        await().atMost(Duration.ofSeconds(20)).until(() -> listener.count(ConsumerAction.PROCESSED) == 300);
        assertThat(variant.ledger.doubled()).isEmpty();
        assertThat(variant.distinctEffects()).isEqualTo(300);
        assertThat(acks.multiple.get()).as("multiple acks").isPositive();
        assertThat(acks.single.get() + acks.multiple.get()).as("ack frames for 300 deliveries").isLessThan(300);
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.inFlight() == 0
                && rabbit.messageCount(rabbit.queue) == 0);
    }

    @Test
    void multipleAckNeverCoversADeliveryWhoseCopyIsUnconfirmed() throws Exception {
        // No delay queues: the retry copy of the failing delivery is unroutable, so its original must be requeued,
        // although processed deliveries before and after it in the same batch are acked together.
        rabbit.admin().queueDeclare(rabbit.queue, true, false, false, null);
        publish(10, "run-");
        RecordingListener listener = new RecordingListener();
        AtomicReference<OnceConsumer> self = new AtomicReference<>();
        AtomicInteger failures = new AtomicInteger();
        AtomicReference<Boolean> batchFormed = new AtomicReference<>();
        OnceConsumer consumer = OnceConsumer.builder(counted(), rabbit.queue, executor())
                .prefetch(20)
                .batchClaims(true)
                .retry(ConsumerScenariosContract.FAST)
                .topology(Topology.none())
                .storeBackoff(Duration.ofMillis(100), Duration.ofMillis(400))
                .listener(listener)
                .handler((d, ctx) -> {
                    String id = ctx.key().id();
                    if (id.equals("run-0") && batchFormed.get() == null) {
                        // Hold the first delivery until the other nine are in hand: they then form one batch. What
                        // it saw is asserted on the test's thread, not here, where a failure would only retry.
                        batchFormed.set(inHandWithin(self.get(), 10, Duration.ofSeconds(10)));
                    }
                    if (id.equals("run-4") && failures.incrementAndGet() == 1) {
                        throw new IllegalStateException("first try of run-4 fails");
                    }
                    variant.effect(id, ctx);
                })
                .build();
        self.set(consumer);
        rabbit.track(consumer.start());

        await().atMost(Duration.ofSeconds(20)).until(() -> variant.distinctEffects() == 10);
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.inFlight() == 0
                && rabbit.messageCount(rabbit.queue) == 0);
        assertThat(batchFormed).as("all ten in hand while the first was held").hasValue(true);
        assertThat(variant.ledger.doubled()).isEmpty();
        assertThat(variant.effects("run-4")).isEqualTo(1);
        // Given back rather than acked (a redelivery that arrives during the pause is given back again).
        assertThat(listener.count(ConsumerAction.REQUEUED)).as("run-4 given back, not acked").isPositive();
        assertThat(listener.count(ConsumerAction.RETRIED_FAILED)).isZero();
        assertThat(listener.count(ConsumerAction.PROCESSED)).isEqualTo(10);
        assertThat(acks.multiple.get()).as("runs around run-4 acked together").isPositive();
    }

    /** Whether {@code consumer} holds {@code n} deliveries within {@code bound}. */
    private static boolean inHandWithin(OnceConsumer consumer, int n, Duration bound) {
        try {
            await().atMost(bound).until(() -> consumer.inFlight() == n);
            return true;
        } catch (ConditionTimeoutException e) {
            return false;
        }
    }
}
