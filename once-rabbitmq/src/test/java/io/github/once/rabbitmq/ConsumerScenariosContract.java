package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.GetResponse;

import io.github.once.Idempotency;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.testkit.FaultProxy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The seed's three duplicate scenarios and the traps around them, against the real RabbitMQ, with effects counted
 * apart from the store. Each store variant runs the whole suite.
 */
abstract class ConsumerScenariosContract {

    static final Duration LEASE = Duration.ofSeconds(1);
    static final RetryPolicy FAST = RetryPolicy.builder().maxAttempts(3)
            .backoff(Duration.ofMillis(30), Duration.ofMillis(60), Duration.ofMillis(120)).build();

    protected RabbitFixture rabbit;
    protected StoreVariant variant;
    final List<Idempotency> executors = new ArrayList<>();

    protected abstract StoreVariant createVariant() throws Exception;

    /** Messages in the soak test, each published twice. */
    protected int soakMessages() {
        return 10_000;
    }

    @BeforeEach
    void setUpRabbit() throws Exception {
        rabbit = new RabbitFixture();
        rabbit.remember(FAST);
        variant = createVariant();
    }

    @AfterEach
    void tearDownRabbit() throws Exception {
        try {
            rabbit.close();
        } finally {
            executors.forEach(Idempotency::close);
            variant.close();
        }
    }

    Idempotency executor() {
        Idempotency e = variant.executor(LEASE);
        executors.add(e);
        return e;
    }

    OnceConsumer start(Connection c, Idempotency executor, MessageHandler handler, RecordingListener listener,
                       UnaryOperator<OnceConsumer.Builder> custom) throws Exception {
        OnceConsumer.Builder b = OnceConsumer.builder(c, rabbit.queue, executor)
                .handler(handler)
                .listener(listener)
                .retry(FAST)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .prefetch(10)
                .storeBackoff(Duration.ofMillis(100), Duration.ofMillis(800))
                .shutdownTimeout(Duration.ofSeconds(5));
        return rabbit.track(custom.apply(b).build().start());
    }

    OnceConsumer start(Connection c, MessageHandler handler, RecordingListener listener) throws Exception {
        return start(c, executor(), handler, listener, b -> b);
    }

    MessageHandler effect() {
        return (d, ctx) -> variant.effect(ctx.key().id(), ctx);
    }

    OncePublisher publisher(Connection c) {
        return rabbit.track(OncePublisher.builder(c).build());
    }

    static OutboundMessage message(String queue, String id, String body) {
        return OutboundMessage.of("", queue, body.getBytes(StandardCharsets.UTF_8)).withMessageId(id);
    }

    /** Every queue empty and nothing held unacknowledged by the consumers. */
    void awaitQuiet(OnceConsumer... consumers) {
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            for (OnceConsumer c : consumers) {
                if (c.inFlight() != 0) {
                    return false;
                }
            }
            for (String q : rabbit.allQueues(FAST)) {
                if (!q.equals(Topology.deadLetterQueue(rabbit.queue)) && exists(q) && rabbit.messageCount(q) != 0) {
                    return false;
                }
            }
            return true;
        });
    }

    private boolean exists(String queue) {
        try {
            rabbit.messageCount(queue);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    static String header(GetResponse r, String name) {
        Object v = r.getProps().getHeaders().get(name);
        return v == null ? null : v.toString();
    }

    // ---- the seed's three scenarios

    @Test
    void producerResendBecomesAHarmlessDuplicate() throws Exception {
        RecordingListener listener = new RecordingListener();
        OnceConsumer consumer = start(rabbit.connect(), effect(), listener);
        OncePublisher publisher = publisher(rabbit.connect());

        publisher.publish(message(rabbit.queue, "order-1", "charge 10"));
        publisher.publish(message(rabbit.queue, "order-1", "charge 10")); // the re-send after a lost confirm

        await().atMost(Duration.ofSeconds(10)).until(() ->
                listener.count(ConsumerAction.PROCESSED) + listener.count(ConsumerAction.DUPLICATE) == 2);
        assertThat(variant.effects("order-1")).isEqualTo(1);
        assertThat(listener.count(ConsumerAction.DUPLICATE)).isEqualTo(1);
        awaitQuiet(consumer);
    }

    @Test
    void lostAckAfterTheRecordIsAbsorbedOnRedelivery() throws Exception {
        RecordingListener listener = new RecordingListener();
        OnceConsumer[] self = new OnceConsumer[1];
        AtomicBoolean closed = new AtomicBoolean();
        // Between the completed record and the ack, the channel goes away: the ack is lost. The executor's
        // listener hears the outcome on the consumer's thread, after the record and before the ack.
        Idempotency closingBeforeAck = variant.executor(LEASE, new OnceListener() {
            @Override
            public void onOutcome(Outcome<?> outcome, Duration elapsed) {
                if (outcome instanceof Outcome.Processed<?> && closed.compareAndSet(false, true)) {
                    try {
                        self[0].workers().get(0).channel().close();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        });
        executors.add(closingBeforeAck);
        self[0] = start(rabbit.connect(), closingBeforeAck, effect(), listener, b -> b);
        publisher(rabbit.connect()).publish(message(rabbit.queue, "ack-1", "ship"));

        await().atMost(Duration.ofSeconds(10)).until(() -> listener.count(ConsumerAction.DUPLICATE) == 1);
        assertThat(listener.count(ConsumerAction.ABANDONED)).isEqualTo(1);
        assertThat(listener.count(ConsumerAction.PROCESSED)).isZero();
        assertThat(variant.effects("ack-1")).isEqualTo(1);
        awaitQuiet(self[0]);
    }

    @Test
    void secondConsumerGetsTheMessageWhileTheFirstStillWorks() throws Exception {
        RecordingListener listenerA = new RecordingListener();
        RecordingListener listenerB = new RecordingListener();
        HandlerGate gate = new HandlerGate();
        AtomicInteger calls = new AtomicInteger();
        OnceConsumer a = start(rabbit.connect(), (d, ctx) -> {
            if (calls.incrementAndGet() == 1) {
                gate.hold();
            }
            variant.effect(ctx.key().id(), ctx);
        }, listenerA);
        publisher(rabbit.connect()).publish(message(rabbit.queue, "failover-1", "deduct stock"));
        gate.awaitEntered();

        OnceConsumer b = start(rabbit.connect(), effect(), listenerB);
        // A's node "fails over": its unacked delivery goes back to the queue while A still works.
        a.workers().get(0).channel().close();
        await().atMost(Duration.ofSeconds(10)).until(() -> listenerB.count(ConsumerAction.RETRIED_BUSY) >= 1);
        gate.release();

        await().atMost(Duration.ofSeconds(10)).until(() ->
                listenerA.count(ConsumerAction.DUPLICATE) + listenerB.count(ConsumerAction.DUPLICATE) >= 1);
        assertThat(variant.effects("failover-1")).isEqualTo(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> listenerA.count(ConsumerAction.ABANDONED) == 1);
        assertThat(listenerB.count(ConsumerAction.PROCESSED) + listenerA.count(ConsumerAction.PROCESSED)).isZero();
        awaitQuiet(a, b);
        gate.assertNoWaitRanOut();
    }

    // ---- traps

    @Test
    void consumerKilledMidHandlerIsTakenOverOnce() throws Exception {
        RecordingListener listenerA = new RecordingListener();
        RecordingListener listenerB = new RecordingListener();
        HandlerGate gate = new HandlerGate();
        AtomicBoolean killed = new AtomicBoolean();
        Connection connA = rabbit.connect();
        Idempotency executorA = executor();
        OnceConsumer a = start(connA, executorA, (d, ctx) -> {
            gate.hold();
            if (killed.get()) {
                throw new IllegalStateException("this process is dead");
            }
            variant.effect(ctx.key().id(), ctx);
        }, listenerA, b -> b);
        publisher(rabbit.connect()).publish(message(rabbit.queue, "kill-1", "pay"));
        gate.awaitEntered();

        killed.set(true);
        variant.kill(executorA);
        connA.abort();
        OnceConsumer b = start(rabbit.connect(), effect(), listenerB);
        try {
            await().atMost(Duration.ofSeconds(15)).until(() -> listenerB.count(ConsumerAction.PROCESSED) == 1);
            awaitQuiet(b);
            assertThat(variant.effects("kill-1")).isEqualTo(1);
        } finally {
            gate.release();
        }
        a.close();
        assertThat(variant.effects("kill-1")).isEqualTo(1);
        gate.assertNoWaitRanOut();
    }

    @Test
    void poisonMessageIsDeadLetteredAfterMaxAttemptsWithItsCause() throws Exception {
        RecordingListener listener = new RecordingListener();
        List<Integer> attempts = new CopyOnWriteArrayList<>();
        OnceConsumer consumer = start(rabbit.connect(), (d, ctx) -> {
            attempts.add(ctx.attempt());
            throw new IllegalStateException("boom " + ctx.key().id());
        }, listener);
        String exchange = rabbit.queue + ".ex";
        Channel admin = rabbit.admin();
        admin.exchangeDeclare(exchange, "direct", false, true, null);
        admin.queueBind(rabbit.queue, exchange, "poison.rk");
        publisher(rabbit.connect()).publish(new OutboundMessage(exchange, "poison.rk", null,
                "bad".getBytes(StandardCharsets.UTF_8)).withMessageId("poison-1"));

        String dlq = Topology.deadLetterQueue(rabbit.queue);
        await().atMost(Duration.ofSeconds(10)).until(() -> rabbit.messageCount(dlq) == 1);
        awaitQuiet(consumer);
        List<GetResponse> dead = rabbit.drain(dlq);
        assertThat(dead).hasSize(1);
        GetResponse r = dead.get(0);
        assertThat(r.getProps().getMessageId()).isEqualTo("poison-1");
        assertThat(new String(r.getBody(), StandardCharsets.UTF_8)).isEqualTo("bad");
        assertThat(header(r, OnceHeaders.REASON)).isEqualTo("max-attempts");
        assertThat(header(r, OnceHeaders.ATTEMPTS)).isEqualTo("3");
        assertThat(header(r, OnceHeaders.ERROR)).isEqualTo("java.lang.IllegalStateException: boom poison-1");
        assertThat(header(r, OnceHeaders.ORIGINAL_EXCHANGE)).isEqualTo(exchange);
        assertThat(header(r, OnceHeaders.ORIGINAL_ROUTING_KEY)).isEqualTo("poison.rk");
        assertThat(header(r, OnceHeaders.QUEUE)).isEqualTo(rabbit.queue);
        // Exactly three deliveries: bounded, with back-off, no hot loop.
        assertThat(listener.deliveries("poison-1")).isEqualTo(3);
        assertThat(attempts).containsExactly(1, 2, 3);
        assertThat(listener.count(ConsumerAction.RETRIED_FAILED)).isEqualTo(2);
        assertThat(listener.count(ConsumerAction.DEAD_LETTERED)).isEqualTo(1);
        assertThat(listener.retriesNextAttempt).containsExactly(2, 3);
        assertThat(listener.deadLetters).containsExactly(DeadLetterReason.MAX_ATTEMPTS);
        assertThat(variant.effects("poison-1")).isZero();
    }

    @Test
    void messageWithoutIdIsDeadLetteredNeverDropped() throws Exception {
        RecordingListener listener = new RecordingListener();
        AtomicInteger calls = new AtomicInteger();
        OnceConsumer consumer = start(rabbit.connect(), (d, ctx) -> calls.incrementAndGet(), listener);
        Channel ch = rabbit.admin();
        ch.basicPublish("", rabbit.queue, new AMQP.BasicProperties.Builder().deliveryMode(2).build(),
                "{\"sku\":\"A\"}".getBytes(StandardCharsets.UTF_8));

        String dlq = Topology.deadLetterQueue(rabbit.queue);
        await().atMost(Duration.ofSeconds(10)).until(() -> rabbit.messageCount(dlq) == 1);
        GetResponse r = rabbit.drain(dlq).get(0);
        assertThat(header(r, OnceHeaders.REASON)).isEqualTo("missing-key");
        assertThat(header(r, OnceHeaders.DETAIL)).isEqualTo("message_id property is absent");
        assertThat(header(r, OnceHeaders.ATTEMPTS)).isEqualTo("1");
        assertThat(new String(r.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"sku\":\"A\"}");
        awaitQuiet(consumer);
        assertThat(calls.get()).isZero();
        assertThat(listener.count(ConsumerAction.DEAD_LETTERED)).isEqualTo(1);
        assertThat(listener.deadLetters).as("the listener hears the reason").containsExactly(
                DeadLetterReason.MISSING_KEY);
        assertThat(listener.batched.get()).as("taken in hand once").isEqualTo(1);
    }

    @Test
    void idFromTheJsonBodyWhenThereIsNoMessageId() throws Exception {
        RecordingListener listener = new RecordingListener();
        OnceConsumer consumer = start(rabbit.connect(), executor(), effect(), listener,
                b -> b.keyExtractor(KeyExtractor.messageId().orElse(KeyExtractor.jsonBody())));
        Channel ch = rabbit.admin();
        byte[] body = "{\"id\": 42, \"sku\": \"A\"}".getBytes(StandardCharsets.UTF_8);
        ch.basicPublish("", rabbit.queue, null, body);
        ch.basicPublish("", rabbit.queue, null, body);

        await().atMost(Duration.ofSeconds(10)).until(() ->
                listener.count(ConsumerAction.PROCESSED) + listener.count(ConsumerAction.DUPLICATE) == 2);
        assertThat(variant.effects("42")).isEqualTo(1);
        awaitQuiet(consumer);
    }

    @Test
    void reusedIdWithAnotherPayloadIsDeadLetteredAsConflict() throws Exception {
        RecordingListener listener = new RecordingListener();
        OnceConsumer consumer = start(rabbit.connect(), effect(), listener);
        OncePublisher publisher = publisher(rabbit.connect());
        publisher.publish(message(rabbit.queue, "conflict-1", "amount=10"));
        await().atMost(Duration.ofSeconds(10)).until(() -> listener.count(ConsumerAction.PROCESSED) == 1);
        publisher.publish(message(rabbit.queue, "conflict-1", "amount=99"));

        String dlq = Topology.deadLetterQueue(rabbit.queue);
        await().atMost(Duration.ofSeconds(10)).until(() -> rabbit.messageCount(dlq) == 1);
        GetResponse r = rabbit.drain(dlq).get(0);
        assertThat(header(r, OnceHeaders.REASON)).isEqualTo("conflict");
        // What differed: the stored payload's fingerprint and this one's.
        java.util.regex.Matcher detail = java.util.regex.Pattern.compile(
                "the key was recorded with payload fingerprint (\\S+); this message's is (\\S+)")
                .matcher(String.valueOf(header(r, OnceHeaders.DETAIL)));
        assertThat(detail.matches()).as("x-once-detail %s", header(r, OnceHeaders.DETAIL)).isTrue();
        assertThat(detail.group(1)).isNotEqualTo(detail.group(2));
        assertThat(new String(r.getBody(), StandardCharsets.UTF_8)).isEqualTo("amount=99");
        assertThat(variant.effects("conflict-1")).isEqualTo(1);
        awaitQuiet(consumer);
    }

    @Test
    void duplicateRequestGetsTheStoredReplyAgain() throws Exception {
        RecordingListener listener = new RecordingListener();
        AtomicInteger calls = new AtomicInteger();
        Idempotency executor = executor();
        OnceConsumer consumer = rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, executor)
                .requestHandler((d, ctx) -> {
                    variant.effect(ctx.key().id(), ctx);
                    return ("answer:" + new String(d.getBody(), StandardCharsets.UTF_8) + ":" + calls.incrementAndGet())
                            .getBytes(StandardCharsets.UTF_8);
                })
                .listener(listener).retry(FAST).topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .build().start());
        Channel admin = rabbit.admin();
        String replyQueue = admin.queueDeclare("", false, true, true, null).getQueue();
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                .messageId("req-1").replyTo(replyQueue).correlationId("corr-1").build();
        OncePublisher publisher = publisher(rabbit.connect());
        publisher.publish(new OutboundMessage("", rabbit.queue, props, "hello".getBytes(StandardCharsets.UTF_8)));
        publisher.publish(new OutboundMessage("", rabbit.queue, props, "hello".getBytes(StandardCharsets.UTF_8)));

        await().atMost(Duration.ofSeconds(10)).until(() -> admin.messageCount(replyQueue) == 2);
        List<String> replies = new ArrayList<>();
        for (GetResponse r; (r = admin.basicGet(replyQueue, true)) != null; ) {
            assertThat(r.getProps().getCorrelationId()).isEqualTo("corr-1");
            replies.add(new String(r.getBody(), StandardCharsets.UTF_8));
        }
        assertThat(replies).containsExactly("answer:hello:1", "answer:hello:1");
        assertThat(variant.effects("req-1")).isEqualTo(1);
        awaitQuiet(consumer);
    }

    @Test
    void closeFinishesWorkInHandAndAcksIt() throws Exception {
        RecordingListener listener = new RecordingListener();
        HandlerGate gate = new HandlerGate();
        OnceConsumer consumer = start(rabbit.connect(), (d, ctx) -> {
            gate.hold();
            variant.effect(ctx.key().id(), ctx);
        }, listener);
        publisher(rabbit.connect()).publish(message(rabbit.queue, "close-1", "work"));
        gate.awaitEntered();

        Thread closer = new Thread(consumer::close);
        closer.start();
        gate.release();
        closer.join(10_000);
        assertThat(closer.isAlive()).isFalse();
        assertThat(listener.count(ConsumerAction.PROCESSED)).isEqualTo(1);
        assertThat(variant.effects("close-1")).isEqualTo(1);
        assertThat(rabbit.messageCount(rabbit.queue)).isZero();
        gate.assertNoWaitRanOut();
    }

    @Test
    void lostConnectionRecoversAndResumesWithoutStaleAcks() throws Exception {
        RecordingListener listener = new RecordingListener();
        HandlerGate gate = new HandlerGate();
        MessageHandler handler = (d, ctx) -> {
            if (ctx.key().id().equals("rec-50") && !gate.entered()) {
                gate.hold();
            }
            variant.effect(ctx.key().id(), ctx);
        };
        try (FaultProxy proxy = new FaultProxy("127.0.0.1", 5672)) {
            com.rabbitmq.client.ConnectionFactory f = RabbitFixture.factory();
            f.setPort(proxy.port());
            Connection viaProxy = f.newConnection("once-test-proxied");
            rabbit.track(viaProxy::abort);
            OnceConsumer consumer = start(viaProxy, executor(), handler, listener, b -> b.prefetch(20));
            // First a channel error: the broker closes the channel, the consumer opens another one. The dead
            // channel must not come back as a second consumer when the connection recovers later.
            Channel first = consumer.workers().get(0).channel();
            first.basicAck(1_000_000_000L, false);
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                Channel now = consumer.workers().get(0).channel();
                return now != first && now.isOpen() && consumers() == 1;
            });
            OncePublisher publisher = publisher(rabbit.connect());
            List<OutboundMessage> batch = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                batch.add(message(rabbit.queue, "rec-" + i, "n" + i));
            }
            publisher.publishAll(batch);
            gate.awaitEntered();
            // The connection dies while deliveries are in hand (one in its handler); the client recovers it.
            proxy.cut();
            await().atMost(Duration.ofSeconds(10)).until(() -> viaProxy.isOpen() && consumers() == 1);
            gate.release();

            await().atMost(Duration.ofSeconds(30)).until(() -> variant.distinctEffects() == 300);
            awaitQuiet(consumer);
            for (int i = 0; i < 300; i++) {
                assertThat(variant.effects("rec-" + i)).as("rec-" + i).isEqualTo(1);
            }
            // The delivery whose handler outlived the connection was not acked with its stale tag; its
            // redelivery was recognised as a duplicate.
            assertThat(listener.count(ConsumerAction.ABANDONED)).isPositive();
            assertThat(listener.count(ConsumerAction.DUPLICATE)).isPositive();
            assertThat(consumers()).isEqualTo(1);
            gate.assertNoWaitRanOut();
        }
    }

    private long consumers() throws Exception {
        Channel ch = rabbit.admin();
        try {
            return ch.queueDeclarePassive(rabbit.queue).getConsumerCount();
        } finally {
            ch.close();
        }
    }

    // ---- scale

    @Test
    void everyMessagePublishedTwiceWithRandomChannelClosesHasExactlyOneEffect() throws Exception {
        int n = soakMessages();
        RecordingListener listener = new RecordingListener();
        List<OnceConsumer> consumers = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            consumers.add(start(rabbit.connect(), executor(), effect(), listener,
                    b -> b.prefetch(100).channels(2).batchClaims(true).maxBatch(20)));
        }
        AtomicBoolean chaos = new AtomicBoolean(true);
        AtomicInteger closes = new AtomicInteger();
        Thread closer = new Thread(() -> {
            Random random = new Random(7);
            while (chaos.get()) {
                try {
                    Thread.sleep(150 + random.nextInt(150));
                    OnceConsumer c = consumers.get(random.nextInt(consumers.size()));
                    Channel ch = c.workers().get(random.nextInt(c.workers().size())).channel();
                    if (ch != null && ch.isOpen()) {
                        if (random.nextBoolean()) {
                            ch.close();
                        } else {
                            ch.basicAck(1_000_000_000L, false); // the broker closes the channel: unknown tag
                        }
                        closes.incrementAndGet();
                    }
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    // the channel was closing anyway
                }
            }
        }, "channel-chaos");
        closer.setDaemon(true);
        closer.start();
        try (OncePublisher publisher = OncePublisher.builder(rabbit.connect()).build()) {
            List<OutboundMessage> batch = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                batch.add(message(rabbit.queue, "soak-" + i, "payload " + i));
            }
            publisher.publishAll(batch);
            publisher.publishAll(batch);
        }
        await().atMost(Duration.ofSeconds(90)).until(() -> variant.distinctEffects() == n);
        chaos.set(false);
        closer.join(5000);
        OnceConsumer[] all = consumers.toArray(new OnceConsumer[0]);
        awaitQuiet(all);
        assertThat(variant.distinctEffects()).isEqualTo(n);
        assertThat(variant.totalEffects()).isEqualTo(n);
        assertThat(closes.get()).isPositive();
        assertThat(listener.count(ConsumerAction.DEAD_LETTERED)).isZero();
        assertThat(rabbit.messageCount(Topology.deadLetterQueue(rabbit.queue))).isZero();
        // Every second copy (and every redelivery after a close) was recognised, not run again.
        assertThat(listener.count(ConsumerAction.PROCESSED)).isLessThanOrEqualTo(n); // a processed one whose ack was lost is ABANDONED
        assertThat(listener.count(ConsumerAction.DUPLICATE)).isGreaterThanOrEqualTo(n);
    }
}
