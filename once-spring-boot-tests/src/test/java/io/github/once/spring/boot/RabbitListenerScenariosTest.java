package io.github.once.spring.boot;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.OnceHeaders;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.IdempotencyStore;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.github.once.spring.boot.Scenarios.count;
import static io.github.once.spring.boot.Scenarios.drain;
import static io.github.once.spring.boot.Scenarios.header;
import static io.github.once.spring.boot.Scenarios.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * once-rabbitmq's consumer scenarios (ConsumerScenariosContract), each test named after the one it mirrors, for
 * unchanged {@code @RabbitListener} methods (single and batch) made idempotent by the starter, against the real
 * RabbitMQ and Redis. One application context for the class.
 */
@SpringBootTest(classes = ScenarioApp.class, properties = {
        "spring.rabbitmq.host=127.0.0.1",
        "once.store=redis",
        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
        "spring.datasource.username=postgres",
        "spring.data.redis.host=127.0.0.1",
        "spring.data.redis.port=6379",
        "once.lease=2s",
        "once.retry.max-attempts=3",
        "once.retry.backoff=30ms,60ms,120ms",
        "once.rabbit.store-backoff=200ms",
        "once.rabbit.max-store-backoff=800ms"})
class RabbitListenerScenariosTest {
    static final String SINGLE = Scenarios.queueName("single");
    static final String HEADER = Scenarios.queueName("header");
    static final String REPLY = Scenarios.queueName("reply");
    static final String BATCH = Scenarios.queueName("batch");
    static final String PREFIX = "once-spring-test:" + UUID.randomUUID() + ":";

    @DynamicPropertySource
    static void queues(DynamicPropertyRegistry r) {
        r.add("scenario.single", () -> SINGLE);
        r.add("scenario.header", () -> HEADER);
        r.add("scenario.reply", () -> REPLY);
        r.add("scenario.batch", () -> BATCH);
        r.add("once.redis.key-prefix", () -> PREFIX);
    }

    @Autowired
    RabbitTemplate template;
    @Autowired
    AmqpAdmin admin;
    @Autowired
    ScenarioListeners listeners;
    @Autowired
    IdempotencyStore store;

    @AfterAll
    static void cleanUp(@Autowired org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry listeners,
                        @Autowired AmqpAdmin admin) {
        listeners.stop(); // before the queues go, so no consumer is left to restart on a missing queue
        Scenarios.deleteAll(admin, SINGLE, HEADER, REPLY, BATCH);
    }

    private static String id(String what) {
        return what + "-" + UUID.randomUUID();
    }

    private void awaitEmpty(String queue) {
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, queue) == 0);
    }

    // ---- single listener

    @Test
    void producerResendBecomesAHarmlessDuplicate() {
        String id = id("order");
        template.send("", SINGLE, message(id, "charge 10"));
        template.send("", SINGLE, message(id, "charge 10")); // the re-send after a lost confirm
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.effects(id) == 1);
        awaitEmpty(SINGLE);
        assertThat(listeners.effects(id)).isEqualTo(1);
    }

    @Test
    void poisonMessageIsDeadLetteredAfterMaxAttemptsWithItsCause() {
        String id = id("poison");
        template.send("", SINGLE, message(id, "fail"));
        String dlq = SINGLE + ".once.dlq";
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> id.equals(m.getMessageProperties().getMessageId())).toList();
        assertThat(dead).hasSize(1);
        Message m = dead.get(0);
        assertThat(new String(m.getBody(), StandardCharsets.UTF_8)).isEqualTo("fail");
        assertThat(header(m, OnceHeaders.REASON)).isEqualTo("max-attempts");
        assertThat(header(m, OnceHeaders.ATTEMPTS)).isEqualTo("3");
        assertThat(header(m, OnceHeaders.ERROR)).isEqualTo("java.lang.IllegalStateException: boom " + id);
        assertThat(header(m, OnceHeaders.QUEUE)).isEqualTo(SINGLE);
        assertThat(listeners.effects(id)).isZero();
    }

    @Test
    void messageWithoutIdIsDeadLetteredNeverDropped() {
        int before = listeners.calls.get();
        String marker = "no-id-" + UUID.randomUUID();
        template.send("", SINGLE, message(null, marker));
        String dlq = SINGLE + ".once.dlq";
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> new String(m.getBody(), StandardCharsets.UTF_8).equals(marker)).toList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("missing-key");
        assertThat(header(dead.get(0), OnceHeaders.ATTEMPTS)).isEqualTo("1");
        assertThat(listeners.calls.get()).isEqualTo(before);
    }

    @Test
    void reusedIdWithAnotherPayloadIsDeadLetteredAsConflict() {
        String id = id("conflict");
        template.send("", SINGLE, message(id, "amount=10"));
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.effects(id) == 1);
        template.send("", SINGLE, message(id, "amount=99"));
        String dlq = SINGLE + ".once.dlq";
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> id.equals(m.getMessageProperties().getMessageId())).toList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("conflict");
        assertThat(new String(dead.get(0).getBody(), StandardCharsets.UTF_8)).isEqualTo("amount=99");
        assertThat(listeners.effects(id)).isEqualTo(1);
    }

    @Test
    void secondConsumerGetsTheMessageWhileTheFirstStillWorks() {
        String id = id("busy");
        // Another consumer holds the key: its lease runs for a second more.
        ClaimResult claim = store.claim(new ClaimRequest(IdempotencyKey.of(SINGLE, id), null, Duration.ofSeconds(1),
                Duration.ofMinutes(5)));
        assertThat(claim).isInstanceOf(ClaimResult.Acquired.class);
        Instant leaseEnds = Instant.now().plusSeconds(1);
        int before = listeners.attemptsSeen.size();
        template.send("", SINGLE, message(id, "deduct stock"));
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.effects(id) == 1);
        // Retried through the delay queues until the other lease lapsed, and no attempt was counted.
        assertThat(Instant.now()).isAfterOrEqualTo(leaseEnds.minusMillis(100));
        assertThat(listeners.attemptsSeen.subList(before, listeners.attemptsSeen.size())).contains(1);
        awaitEmpty(SINGLE);
        assertThat(listeners.effects(id)).isEqualTo(1);
    }

    @Test
    void idFromAHeaderThroughASpelKey() {
        String order = UUID.randomUUID().toString();
        for (int i = 0; i < 2; i++) {
            Message m = message(null, "ship");
            m.getMessageProperties().setHeader("x-order-id", order);
            template.send("", HEADER, m);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.effects("header:" + order) == 1);
        awaitEmpty(HEADER);
        assertThat(listeners.effects("header:" + order)).isEqualTo(1);
        assertThat(store.find(IdempotencyKey.of("orders", order))).isPresent();
    }

    @Test
    void duplicateRequestGetsTheStoredReplyAgain() {
        String id = id("request");
        Message request = message(id, "quote");
        request.getMessageProperties().setContentType("text/plain");
        Message first = template.sendAndReceive("", REPLY, request);
        Message request2 = message(id, "quote");
        request2.getMessageProperties().setContentType("text/plain");
        Message second = template.sendAndReceive("", REPLY, request2);
        assertThat(first).isNotNull();
        assertThat(second).isNotNull();
        assertThat(new String(first.getBody(), StandardCharsets.UTF_8)).startsWith("answer:quote:");
        assertThat(second.getBody()).isEqualTo(first.getBody());
        assertThat(second.getMessageProperties().getContentType())
                .isEqualTo(first.getMessageProperties().getContentType());
        assertThat(listeners.effects("reply:quote")).isGreaterThanOrEqualTo(1);
    }

    // ---- batch listener

    @Test
    void batchProducerResendBecomesAHarmlessDuplicate() {
        List<String> ids = List.of(id("b"), id("b"), id("b"));
        for (String id : ids) {
            template.send("", BATCH, message(id, "item"));
            template.send("", BATCH, message(id, "item"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream().allMatch(i -> listeners.effects("batch:" + i) == 1));
        awaitEmpty(BATCH);
        for (String id : ids) {
            assertThat(listeners.effects("batch:" + id)).isEqualTo(1);
        }
    }

    @Test
    void batchPoisonMessageIsDeadLetteredAfterMaxAttemptsWithItsCause() {
        String bad = id("bpoison");
        template.send("", BATCH, message(bad, "fail"));
        String dlq = BATCH + ".once.dlq";
        await().atMost(Duration.ofSeconds(15)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> bad.equals(m.getMessageProperties().getMessageId())).toList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("max-attempts");
        assertThat(header(dead.get(0), OnceHeaders.ATTEMPTS)).isEqualTo("3");
        assertThat(listeners.effects("batch:" + bad)).isZero();
    }

    @Test
    void batchMessageWithoutIdIsDeadLetteredNeverDropped() {
        String marker = "batch-no-id-" + UUID.randomUUID();
        template.send("", BATCH, message(null, marker));
        String dlq = BATCH + ".once.dlq";
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> new String(m.getBody(), StandardCharsets.UTF_8).equals(marker)).toList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("missing-key");
    }
}
