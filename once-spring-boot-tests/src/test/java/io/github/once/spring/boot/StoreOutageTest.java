package io.github.once.spring.boot;

import io.github.once.RecordState;
import io.github.once.spi.IdempotencyStore;

import java.io.IOException;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.github.once.spring.boot.Scenarios.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store goes away (a private redis-server, stopped) and comes back: the listener containers stop and
 * resume, nothing is lost or doubled (StoreOutageContract's storeStoppedBetweenMessagesPausesAndResumes...), and
 * the health indicator goes DOWN and UP again.
 */
@SpringBootTest(classes = ScenarioApp.class, properties = {
        "spring.rabbitmq.host=127.0.0.1",
        "once.store=redis",
        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
        "spring.datasource.username=postgres",
        "spring.data.redis.host=127.0.0.1",
        "spring.data.redis.timeout=2s",
        "once.redis.timeout=3s",
        "once.lease=2s",
        "once.retry.max-attempts=3",
        "once.retry.backoff=30ms,60ms,120ms",
        "once.rabbit.store-backoff=200ms",
        "once.rabbit.max-store-backoff=800ms"})
class StoreOutageTest {
    static final String SINGLE = Scenarios.queueName("outage");
    static final String OTHER = Scenarios.queueName("outage-other");
    static final RedisServer REDIS;

    static {
        try {
            REDIS = new RedisServer().start();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @DynamicPropertySource
    static void queues(DynamicPropertyRegistry r) {
        r.add("scenario.single", () -> SINGLE);
        r.add("scenario.header", () -> OTHER + "-h");
        r.add("scenario.reply", () -> OTHER + "-r");
        r.add("scenario.batch", () -> OTHER + "-b");
        r.add("spring.data.redis.port", () -> REDIS.port);
    }

    @Autowired
    RabbitTemplate template;
    @Autowired
    ScenarioListeners listeners;
    @Autowired
    RabbitListenerEndpointRegistry registry;
    @Autowired
    ApplicationContext context;
    @Autowired
    IdempotencyStore store;

    @AfterAll
    static void cleanUp(@Autowired org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry listeners,
                        @Autowired AmqpAdmin admin) throws InterruptedException {
        listeners.stop(); // before the queues go, so no consumer is left to restart on a missing queue
        Scenarios.deleteAll(admin, SINGLE, OTHER + "-h", OTHER + "-r", OTHER + "-b");
        REDIS.close();
    }

    /** The status code of the health indicator, on either Boot line. */
    private String health() throws Exception {
        Object indicator = context.getBean("onceHealthIndicator");
        Method health = indicator.getClass().getMethod("health");
        health.setAccessible(true);
        Object result = health.invoke(indicator);
        Object status = result.getClass().getMethod("getStatus").invoke(result);
        return status.getClass().getMethod("getCode").invoke(status).toString();
    }

    private boolean singleRunning() {
        return registry.getListenerContainers().stream()
                .filter(c -> c instanceof org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer a
                        && List.of(a.getQueueNames()).contains(SINGLE))
                .allMatch(c -> c.isRunning());
    }

    @Test
    void storeStoppedBetweenMessagesPausesAndResumesNothingLostNothingDoubledAndHealthFollows() throws Exception {
        assertThat(health()).isEqualTo("UP");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String id = "before-" + UUID.randomUUID();
            ids.add(id);
            template.send("", SINGLE, message(id, "pay"));
        }
        // Stopped between messages: every record written, not only every effect done.
        await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream().allMatch(id -> store.find(
                io.github.once.IdempotencyKey.of(SINGLE, id)).filter(r -> r.state() == RecordState.COMPLETED)
                .isPresent()));

        REDIS.stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> health().equals("DOWN"));
        for (int i = 0; i < 5; i++) {
            String id = "during-" + UUID.randomUUID();
            ids.add(id);
            template.send("", SINGLE, message(id, "pay"));
            template.send("", SINGLE, message(id, "pay"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !singleRunning());

        REDIS.start();
        await().atMost(Duration.ofSeconds(15)).until(() -> health().equals("UP"));
        await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream().allMatch(id -> listeners.effects(id) >= 1));
        await().atMost(Duration.ofSeconds(10)).until(this::singleRunning);
        for (String id : ids) {
            assertThat(listeners.effects(id)).as(id).isEqualTo(1);
        }
    }
}
