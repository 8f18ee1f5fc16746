package io.github.once.spring.boot;

import com.rabbitmq.client.Channel;

import io.github.once.IdempotencyKey;
import io.github.once.RecordState;
import io.github.once.rabbitmq.OnceHeaders;
import io.github.once.rabbitmq.OutboundMessage;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.testkit.StoreCalls;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.connection.ChannelProxy;
import org.springframework.amqp.rabbit.listener.MessageListenerContainer;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ConfigurableApplicationContext;

import static io.github.once.spring.boot.Scenarios.count;
import static io.github.once.spring.boot.Scenarios.drain;
import static io.github.once.spring.boot.Scenarios.header;
import static io.github.once.spring.boot.Scenarios.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * once-rabbitmq's consumer scenarios (ConsumerScenariosContract), each test named after the one it mirrors, for
 * unchanged {@code @RabbitListener} methods made idempotent by the starter, against the real RabbitMQ and Redis.
 * Each subclass runs them on one kind of listener container, in one application context whose queues and keys
 * are its own; the channel and connection handling under test is the container's.
 */
abstract class ListenerScenariosContract extends ScenarioSupport {
    @Autowired
    ConnectionName connection;

    static String id(String what) {
        return what + "-" + UUID.randomUUID();
    }

    void awaitEmpty(String queue) {
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, queue) == 0);
    }

    // ---- the seed's scenarios

    @Test
    void producerResendBecomesAHarmlessDuplicate() {
        String single = queue("single");
        String id = id("order");
        template.send("", single, message(id, "charge 10"));
        template.send("", single, message(id, "charge 10")); // the re-send after a lost confirm
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.effects(id) == 1);
        awaitEmpty(single);
        assertThat(listeners.effects(id)).isEqualTo(1);
    }

    @Test
    void lostAckAfterTheRecordIsAbsorbedOnRedelivery() {
        String single = queue("single");
        String id = id("ack");
        IdempotencyKey key = IdempotencyKey.of(single, id);
        double abandoned = action(single, "abandoned");
        double duplicates = action(single, "duplicate");
        // Between the completed record and the container's ack, the channel goes away: the ack is lost.
        store.afterComplete(key, () -> closeReally(listeners.channels.get(id)));
        template.send("", single, message(id, "ship"));

        await().atMost(Duration.ofSeconds(10)).until(() -> store.claims(key).size() == 2 && quiet(single));
        assertThat(store.claims(key)).hasSize(2);
        assertThat(store.claims(key).get(0)).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(store.claims(key).get(1)).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(listeners.effects(id)).isEqualTo(1);
        assertThat(action(single, "abandoned") - abandoned).isEqualTo(1);
        assertThat(action(single, "duplicate") - duplicates).isEqualTo(1);
    }

    /** Closes the channel itself, not Spring's cached proxy around it (whose close only returns it to a cache). */
    private static void closeReally(Channel channel) {
        try {
            (channel instanceof ChannelProxy proxy ? proxy.getTargetChannel() : channel).close();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void secondConsumerGetsTheMessageWhileTheFirstStillWorks() {
        String single = queue("single");
        String id = id("busy");
        // Another consumer holds the key: its lease runs for a second more.
        ClaimResult claim = StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of(single, id), null, Duration.ofSeconds(1),
                Duration.ofMinutes(5)));
        assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
        Instant leaseEnds = Instant.now().plusSeconds(1);
        int before = listeners.attemptsSeen.size();
        template.send("", single, message(id, "deduct stock"));
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.effects(id) == 1);
        // Retried through the delay queues until the other lease lapsed, and no attempt was counted.
        assertThat(Instant.now()).isAfterOrEqualTo(leaseEnds.minusMillis(100));
        assertThat(listeners.attemptsSeen.subList(before, listeners.attemptsSeen.size())).contains(1);
        awaitEmpty(single);
        assertThat(listeners.effects(id)).isEqualTo(1);
    }

    // ---- traps

    @Test
    void consumerKilledMidHandlerIsTakenOverOnce() throws Exception {
        String queue = Scenarios.queueName("takeover");
        String[] properties = {
                "spring.rabbitmq.host=127.0.0.1",
                "spring.rabbitmq.listener.type=" + env.getProperty("spring.rabbitmq.listener.type", "simple"),
                "spring.main.banner-mode=off",
                "spring.jmx.enabled=false",
                "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
                "spring.datasource.username=postgres",
                "once.store=redis",
                "spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=6379",
                "once.redis.key-prefix=" + env.getProperty("once.redis.key-prefix"),
                "once.lease=2s",
                "once.retry.max-attempts=3",
                "once.retry.backoff=30ms,60ms,120ms",
                "scenario.takeover=" + queue};
        Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
        Gate held = new Gate();
        String id = id("kill");
        IdempotencyKey key = IdempotencyKey.of(queue, id);
        try (ConfigurableApplicationContext a = TakeoverApp.start(
                new TakeoverApp.Instance(effects, held, new AtomicBoolean()), properties)) {
            template.send("", queue, message(id, "pay"));
            held.awaitEntered();
            Thread stopping = TakeoverApp.kill(a);
            try (ConfigurableApplicationContext b = TakeoverApp.start(
                    new TakeoverApp.Instance(effects, null, new AtomicBoolean()), properties)) {
                await().atMost(Duration.ofSeconds(20)).until(() -> effects.containsKey(id) && quiet(queue));
                // The second instance took the key over once the dead one's lease had lapsed.
                List<ClaimResult> claims = b.getBean(ScenarioStore.class).claims(key);
                assertThat(claims.get(claims.size() - 1)).isInstanceOfSatisfying(ClaimResult.Acquired.class,
                        acquired -> assertThat(acquired.takeovers()).isEqualTo(1));
                assertThat(effects.get(id)).hasValue(1);
            } finally {
                held.release();
                stopping.join(15_000);
            }
            assertThat(stopping.isAlive()).isFalse();
            assertThat(effects.get(id)).hasValue(1);
        } finally {
            Scenarios.deleteAll(admin, queue);
        }
    }

    @Test
    void poisonMessageIsDeadLetteredAfterMaxAttemptsWithItsCause() {
        String single = queue("single");
        String id = id("poison");
        template.send("", single, message(id, "fail"));
        String dlq = single + ".once.dlq";
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> id.equals(m.getMessageProperties().getMessageId())).toList();
        assertThat(dead).hasSize(1);
        Message m = dead.get(0);
        assertThat(new String(m.getBody(), StandardCharsets.UTF_8)).isEqualTo("fail");
        assertThat(header(m, OnceHeaders.REASON)).isEqualTo("max-attempts");
        assertThat(header(m, OnceHeaders.ATTEMPTS)).isEqualTo("3");
        assertThat(header(m, OnceHeaders.ERROR)).isEqualTo("java.lang.IllegalStateException: boom " + id);
        assertThat(header(m, OnceHeaders.QUEUE)).isEqualTo(single);
        assertThat(listeners.effects(id)).isZero();
    }

    @Test
    void aCopyReturnedTooOftenIsDeadLetteredAsACrashLoopUnrun() {
        String single = queue("single");
        String id = id("crash-loop");
        Message m = message(id, "ok");
        // What a quorum queue sets on a copy that consumers which died holding it gave back this many times.
        m.getMessageProperties().setHeader("x-delivery-count", 1_000L);
        template.send("", single, m);
        String dlq = single + ".once.dlq";
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(d -> id.equals(d.getMessageProperties().getMessageId())).toList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("crash-loop");
        assertThat(header(dead.get(0), OnceHeaders.ERROR)).contains("x-delivery-count 1000");
        assertThat(listeners.effects(id)).as("the listener would have counted an effect for it").isZero();
    }

    @Test
    void messageWithoutIdIsDeadLetteredNeverDropped() {
        String single = queue("single");
        int before = listeners.calls.get();
        String marker = "no-id-" + UUID.randomUUID();
        template.send("", single, message(null, marker));
        String dlq = single + ".once.dlq";
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> new String(m.getBody(), StandardCharsets.UTF_8).equals(marker)).toList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("missing-key");
        assertThat(header(dead.get(0), OnceHeaders.ATTEMPTS)).isEqualTo("1");
        assertThat(listeners.calls.get()).isEqualTo(before);
    }

    @Test
    void idFromAHeaderThroughASpelKey() {
        String header = queue("header");
        String order = UUID.randomUUID().toString();
        for (int i = 0; i < 2; i++) {
            Message m = message(null, "ship");
            m.getMessageProperties().setHeader("x-order-id", order);
            template.send("", header, m);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.effects("header:" + order) == 1);
        awaitEmpty(header);
        assertThat(listeners.effects("header:" + order)).isEqualTo(1);
        assertThat(StoreCalls.find(store, IdempotencyKey.of("orders", order))).isPresent();
    }

    @Test
    void reusedIdWithAnotherPayloadIsDeadLetteredAsConflict() {
        String single = queue("single");
        String id = id("conflict");
        template.send("", single, message(id, "amount=10"));
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.effects(id) == 1);
        template.send("", single, message(id, "amount=99"));
        String dlq = single + ".once.dlq";
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> id.equals(m.getMessageProperties().getMessageId())).toList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("conflict");
        assertThat(new String(dead.get(0).getBody(), StandardCharsets.UTF_8)).isEqualTo("amount=99");
        assertThat(listeners.effects(id)).isEqualTo(1);
    }

    @Test
    void duplicateRequestGetsTheStoredReplyAgain() {
        String reply = queue("reply");
        String id = id("request");
        Message request = message(id, "quote");
        request.getMessageProperties().setContentType("text/plain");
        Message first = template.sendAndReceive("", reply, request);
        Message request2 = message(id, "quote");
        request2.getMessageProperties().setContentType("text/plain");
        Message second = template.sendAndReceive("", reply, request2);
        assertThat(first).isNotNull();
        assertThat(second).isNotNull();
        assertThat(new String(first.getBody(), StandardCharsets.UTF_8)).startsWith("answer:quote:");
        assertThat(second.getBody()).isEqualTo(first.getBody());
        assertThat(second.getMessageProperties().getContentType())
                .isEqualTo(first.getMessageProperties().getContentType());
        assertThat(listeners.effects("reply:quote")).isGreaterThanOrEqualTo(1);
    }

    @Test
    void closeFinishesWorkInHandAndAcksIt() throws Exception {
        String close = queue("close");
        String id = id("close");
        Gate held = listeners.hold(id);
        MessageListenerContainer container = registry.getListenerContainer("close");
        template.send("", close, message(id, "work"));
        held.awaitEntered();

        Thread stopping = new Thread(container::stop, "close-test-stop");
        stopping.start();
        // The container has cancelled its consumer and waits for the handler in hand.
        await().atMost(Duration.ofSeconds(10)).until(() -> admin.getQueueInfo(close).getConsumerCount() == 0);
        held.release();
        stopping.join(10_000);
        assertThat(stopping.isAlive()).isFalse();
        assertThat(listeners.effects(id)).isEqualTo(1);
        assertThat(StoreCalls.find(store, IdempotencyKey.of(close, id))).hasValueSatisfying(
                r -> assertThat(r.state()).isEqualTo(RecordState.COMPLETED));
        // Acked: neither back in the queue nor held unacknowledged.
        assertThat(RabbitCtl.messages(close)).isZero();
    }

    @Test
    void lostConnectionRecoversAndResumesWithoutStaleAcks() throws Exception {
        String recover = queue("recover");
        List<String> ids = new ArrayList<>();
        List<OutboundMessage> messages = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            ids.add(id("rec-" + i));
            messages.add(Scenarios.outbound(recover, ids.get(i), "n" + i));
        }
        String heldId = ids.get(50);
        Gate held = listeners.hold(heldId);
        double duplicates = action(recover, "duplicate");
        double abandoned = action(recover, "abandoned");
        Scenarios.publishConfirmed(messages);
        held.awaitEntered();

        // The broker closes the connection while deliveries are in hand, one of them in its handler.
        assertThat(connection.closeFromBroker()).isPositive();
        // The containers recover on a new connection and resume: every other message is done meanwhile.
        await().atMost(Duration.ofSeconds(30)).until(() -> ids.stream()
                .filter(id -> !id.equals(heldId)).allMatch(id -> listeners.effects(id) >= 1));
        held.release();

        // The meters hear the abandoned ack and the duplicate after the effects are counted: wait for them too.
        await().atMost(Duration.ofSeconds(20)).until(() -> listeners.effects(heldId) >= 1 && quiet(recover)
                && admin.getQueueInfo(recover).getConsumerCount() == 2
                && action(recover, "abandoned") > abandoned && action(recover, "duplicate") > duplicates);
        for (String id : ids) {
            assertThat(listeners.effects(id)).as(id).isEqualTo(1);
        }
        // The held delivery's ack did not go out on the new channel with its stale tag: the broker redelivered
        // it, and the redelivery was recognised as a duplicate.
        assertThat(action(recover, "abandoned") - abandoned).isPositive();
        assertThat(action(recover, "duplicate") - duplicates).isPositive();
        assertThat(count(admin, recover + ".once.dlq")).isZero();
    }

    // ---- scale

    @Test
    void everyMessagePublishedTwiceWithRandomConnectionClosesHasExactlyOneEffect() throws Exception {
        int n = 1_000;
        String soak = queue("soak");
        List<String> ids = new ArrayList<>();
        List<OutboundMessage> messages = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(id("soak-" + i));
            messages.add(Scenarios.outbound(soak, ids.get(i), "payload " + i));
        }
        double duplicates = action(soak, "duplicate");
        List<OutboundMessage> twice = new ArrayList<>(messages);
        twice.addAll(messages);
        Scenarios.publishConfirmed(twice);

        // A few broker-side connection closes at random moments of the run.
        Random random = new Random(7);
        AtomicInteger closes = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            int threshold = (i + 1) * n / 5 + random.nextInt(n / 10);
            await().atMost(Duration.ofSeconds(60)).until(() -> done(ids) >= threshold);
            if (connection.closeFromBroker() > 0) {
                closes.incrementAndGet();
            }
        }
        await().atMost(Duration.ofSeconds(90)).until(() -> done(ids) == n && quiet(soak));
        assertThat(closes.get()).isEqualTo(3);
        for (String id : ids) {
            assertThat(listeners.effects(id)).as(id).isEqualTo(1);
        }
        assertThat(count(admin, soak + ".once.dlq")).isZero();
        // Every second copy (and every redelivery after a close) was recognised, not run again.
        assertThat(action(soak, "duplicate") - duplicates).isGreaterThanOrEqualTo(n);
    }

    // ---- what the consumer meters count

    @Test
    void consumerMetersCountDeliveriesActionsRetriesDeadLettersBatchesAndInFlight() throws Exception {
        String metered = queue("metered");
        String heldId = id("held");
        Gate held = listeners.hold(heldId);
        template.send("", metered, message(heldId, "wait"));
        held.awaitEntered();
        assertThat(inFlight(metered)).isEqualTo(1);
        held.release();

        // 20 messages, 5 of them sent twice; one that always fails; one without an id.
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String id = id("m" + i);
            ids.add(id);
            template.send("", metered, message(id, "work " + i));
            if (i % 4 == 0) {
                template.send("", metered, message(id, "work " + i));
            }
        }
        template.send("", metered, message(id("poison"), "fail"));
        template.send("", metered, message(null, "no id"));

        await().atMost(Duration.ofSeconds(15)).until(() -> counted("once.consumer.dead.letters", metered, "reason",
                "max-attempts") == 1 && action(metered, "processed") == 21 && quiet(metered));
        assertThat(ids).allMatch(id -> listeners.effects(id) == 1);
        assertThat(counted("once.consumer.deliveries", metered)).isEqualTo(30); // 1 + 25, 3 attempts, 1 keyless
        assertThat(action(metered, "processed")).isEqualTo(21);
        assertThat(action(metered, "duplicate")).isEqualTo(5);
        assertThat(action(metered, "retried-failed")).isEqualTo(2);
        assertThat(action(metered, "dead-lettered")).isEqualTo(2);
        assertThat(counted("once.consumer.acks", metered)).isEqualTo(30);
        assertThat(counted("once.consumer.dead.letters", metered, "reason", "max-attempts")).isEqualTo(1);
        assertThat(counted("once.consumer.dead.letters", metered, "reason", "missing-key")).isEqualTo(1);
        assertThat(counted("once.consumer.retries", metered, "cause", "failed")).isEqualTo(2);
        assertThat(counted("once.consumer.retries", metered, "level", "30")).isEqualTo(1);
        assertThat(counted("once.consumer.retries", metered, "level", "60")).isEqualTo(1);
        var batches = meters.get("once.consumer.batch.size").tag("queue", metered).summary();
        assertThat(batches.count()).isEqualTo(30);
        assertThat(batches.totalAmount()).isEqualTo(30);
        assertThat(inFlight(metered)).isZero();
        // Store calls are counted under the listener's namespace (here the queue's name), not one label for all.
        assertThat(meters.get("once.store.calls").tag("namespace", metered).tag("operation", "claim").timer().count())
                .isPositive();
        assertThat(meters.find("once.store.calls").tag("namespace", "spring-rabbit").timers()).isEmpty();
    }
}
