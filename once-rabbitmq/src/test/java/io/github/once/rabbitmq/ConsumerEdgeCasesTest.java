package io.github.once.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;

import io.github.once.Idempotency;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Retry strategies, queue types, lost leases, failed moves and steps in a consumer handler, with the in-memory store
 * on the real broker.
 */
class ConsumerEdgeCasesTest {

    private RabbitFixture rabbit;
    private final InMemoryVariant variant = new InMemoryVariant();

    @BeforeEach
    void setUp() {
        rabbit = new RabbitFixture();
        rabbit.remember(ConsumerScenariosContract.FAST);
    }

    @AfterEach
    void tearDown() throws Exception {
        rabbit.close();
    }

    private Idempotency executor() {
        return rabbit.track(variant.executor(Duration.ofSeconds(1)));
    }

    private OncePublisher publisher() throws Exception {
        return rabbit.track(OncePublisher.builder(rabbit.connect()).build());
    }

    private static OutboundMessage message(String queue, String id) {
        return OutboundMessage.of("", queue, id.getBytes(StandardCharsets.UTF_8)).withMessageId(id);
    }

    @Test
    void requeueTailStrategyIsBoundedAndNeedsNoDelayQueues() throws Exception {
        RetryPolicy tail = RetryPolicy.builder().maxAttempts(4).strategy(RetryPolicy.Strategy.REQUEUE_TAIL).build();
        RecordingListener listener = new RecordingListener();
        rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, executor())
                .handler((d, ctx) -> {
                    throw new IllegalArgumentException("never works");
                })
                .listener(listener).retry(tail).topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .build().start());
        publisher().publish(message(rabbit.queue, "tail-1"));

        String dlq = Topology.deadLetterQueue(rabbit.queue);
        await().atMost(Duration.ofSeconds(10)).until(() -> rabbit.messageCount(dlq) == 1);
        GetResponse r = rabbit.drain(dlq).get(0);
        assertThat(ConsumerScenariosContract.header(r, OnceHeaders.REASON)).isEqualTo("max-attempts");
        assertThat(ConsumerScenariosContract.header(r, OnceHeaders.ATTEMPTS)).isEqualTo("4");
        assertThat(listener.deliveries("tail-1")).isEqualTo(4);
        Channel ch = rabbit.admin();
        assertThatThrownBy(() -> ch.queueDeclarePassive(Topology.delayQueue(rabbit.queue, tail.backoff().get(0))))
                .isInstanceOf(IOException.class); // 404: no delay queue was declared
    }

    @Test
    void quorumQueuesWithDelayedRetries() throws Exception {
        RecordingListener listener = new RecordingListener();
        AtomicInteger calls = new AtomicInteger();
        OnceConsumer consumer = rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, executor())
                .handler((d, ctx) -> {
                    if (calls.incrementAndGet() < 3) {
                        throw new IllegalStateException("flaky downstream");
                    }
                    variant.effect(ctx.key().id(), ctx);
                })
                .listener(listener).retry(ConsumerScenariosContract.FAST)
                .topology(Topology.declareAll(Topology.QueueType.QUORUM))
                .build().start());
        // Declaring again is harmless.
        Topology.declareAll(Topology.QueueType.QUORUM).declare(rabbit.connect(), rabbit.queue, ConsumerScenariosContract.FAST);
        publisher().publish(message(rabbit.queue, "quorum-1"));

        await().atMost(Duration.ofSeconds(10)).until(() -> variant.effects("quorum-1") == 1);
        assertThat(listener.count(ConsumerAction.RETRIED_FAILED)).isEqualTo(2);
        assertThat(listener.deliveries("quorum-1")).isEqualTo(3);
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.inFlight() == 0
                && rabbit.messageCount(rabbit.queue) == 0);
    }

    @Test
    void aStaleOwnerIsRefusedByFencingAndItsCopyIsRetriedNotAcked() throws Exception {
        // The effect accepts only writes whose fencing token is not older than one it has seen.
        Map<String, Long> newestToken = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> accepted = new ConcurrentHashMap<>();
        MessageHandler fencedEffect = (d, ctx) -> {
            String id = ctx.key().id();
            boolean[] ok = {false};
            newestToken.compute(id, (k, seen) -> {
                if (seen != null && seen > ctx.fencingToken()) {
                    return seen;
                }
                ok[0] = true;
                return ctx.fencingToken();
            });
            if (ok[0]) {
                accepted.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            }
        };
        RecordingListener listenerA = new RecordingListener();
        HandlerGate gate = new HandlerGate();
        AtomicInteger callsA = new AtomicInteger();
        Idempotency executorA = (Idempotency) variant.executor(Duration.ofSeconds(1));
        OnceConsumer a = rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, executorA)
                .handler((d, ctx) -> {
                    if (callsA.incrementAndGet() == 1) {
                        gate.hold();
                        // A pause longer than the lease (a GC stall): meanwhile B took the key over.
                    }
                    fencedEffect.handle(d, ctx);
                })
                .listener(listenerA).retry(ConsumerScenariosContract.FAST).prefetch(1)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC)).build().start());
        publisher().publish(message(rabbit.queue, "stall-1"));
        gate.awaitEntered();
        executorA.close(); // A stops renewing, as a stalled process would

        // The producer re-sends; B gets the copy and takes the key over once A's lease lapses.
        RecordingListener listenerB = new RecordingListener();
        OnceConsumer b = rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, executor())
                .handler(fencedEffect).listener(listenerB).retry(ConsumerScenariosContract.FAST)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC)).build().start());
        publisher().publish(message(rabbit.queue, "stall-1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> listenerB.count(ConsumerAction.PROCESSED) == 1);

        gate.release();
        // A's completion is refused (LeaseLost): its copy goes to a delay queue, and comes back as a duplicate.
        await().atMost(Duration.ofSeconds(10)).until(() -> listenerA.count(ConsumerAction.RETRIED_LEASE_LOST) == 1);
        await().atMost(Duration.ofSeconds(10)).until(() ->
                listenerA.count(ConsumerAction.DUPLICATE) + listenerB.count(ConsumerAction.DUPLICATE) == 1);
        assertThat(accepted.get("stall-1").get()).isEqualTo(1); // A's stale write was refused downstream
        assertThat(listenerA.count(ConsumerAction.PROCESSED)).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> a.inFlight() == 0 && b.inFlight() == 0
                && rabbit.messageCount(rabbit.queue) == 0);
        gate.assertNoWaitRanOut();
    }

    @Test
    void aMoveThatIsNotConfirmedKeepsTheMessageAndPauses() throws Exception {
        // No delay queues exist: the retry copy is unroutable, so the original must stay in the queue.
        Channel admin = rabbit.admin();
        admin.queueDeclare(rabbit.queue, true, false, false, null);
        RecordingListener listener = new RecordingListener();
        AtomicInteger calls = new AtomicInteger();
        OnceConsumer consumer = rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, executor())
                .handler((d, ctx) -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new IllegalStateException("first try fails");
                    }
                    variant.effect(ctx.key().id(), ctx);
                })
                .listener(listener).retry(ConsumerScenariosContract.FAST).topology(Topology.none())
                .storeBackoff(Duration.ofMillis(100), Duration.ofMillis(400))
                .build().start());
        publisher().publish(message(rabbit.queue, "move-1"));

        await().atMost(Duration.ofSeconds(10)).until(() -> listener.pauses.get() >= 1
                && listener.count(ConsumerAction.REQUEUED) >= 1);
        assertThat(listener.count(ConsumerAction.RETRIED_FAILED)).isZero();
        // Once the topology exists, the redelivery (a fresh claim: the failure released the key) succeeds.
        Topology.retryQueuesOnly(Topology.QueueType.CLASSIC).declare(rabbit.connect(), rabbit.queue,
                ConsumerScenariosContract.FAST);
        await().atMost(Duration.ofSeconds(10)).until(() -> variant.effects("move-1") == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> consumer.inFlight() == 0
                && rabbit.messageCount(rabbit.queue) == 0 && !consumer.isPaused());
    }

    /**
     * A consumer handler's {@link DeliveryContext} runs the executor's steps and gives its operation keys: a step
     * done before a later failure is skipped on the delayed retry, and the operation key is the same on every attempt.
     */
    @Test
    void aStepDoneBeforeAFailureIsSkippedOnTheRetryAndTheOperationKeyStaysTheSame() throws Exception {
        AtomicInteger charges = new AtomicInteger();
        AtomicInteger notifications = new AtomicInteger();
        List<String> operationKeys = new CopyOnWriteArrayList<>();
        List<String> chargeIds = new CopyOnWriteArrayList<>();
        RecordingListener listener = new RecordingListener();
        rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, executor())
                .handler((d, ctx) -> {
                    operationKeys.add(ctx.operationKey("payment"));
                    chargeIds.add(ctx.step("charge", () -> "charge-" + charges.incrementAndGet()));
                    if (ctx.attempt() == 1) {
                        throw new IllegalStateException("the notification service is down");
                    }
                    notifications.incrementAndGet();
                })
                .listener(listener).retry(ConsumerScenariosContract.FAST)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .build().start());
        publisher().publish(message(rabbit.queue, "order-7"));

        await().atMost(Duration.ofSeconds(10)).until(() -> listener.count(ConsumerAction.PROCESSED) == 1);
        assertThat(listener.count(ConsumerAction.RETRIED_FAILED)).isEqualTo(1);
        assertThat(charges).hasValue(1);
        assertThat(chargeIds).containsExactly("charge-1", "charge-1");
        assertThat(notifications).hasValue(1);
        assertThat(operationKeys).hasSize(2).allMatch(k -> k.equals(operationKeys.get(0)));
        assertThat(operationKeys.get(0)).contains("order-7").endsWith(":payment");
    }
}
