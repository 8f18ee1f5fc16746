package io.github.once.spring.boot;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import static io.github.once.spring.boot.Scenarios.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application starts while its store is down (a private redis-server on a spare port, not running yet): the
 * context starts, the health component reports DOWN, the listener takes no delivery; once Redis runs, the health
 * is UP, the listener starts and every message has its effect once. With {@code once.fail-fast=true} the same
 * start fails.
 */
@TestPropertySource(properties = {"spring.data.redis.timeout=1s", "once.redis.timeout=1s"})
class StoreDownAtStartTest extends ScenarioSupport {
    private static final RedisServer REDIS = spare();

    private static RedisServer spare() {
        try {
            return new RedisServer();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @DynamicPropertySource
    static void names(DynamicPropertyRegistry r) {
        Scenarios.register(r, "down-at-start");
        r.add("spring.data.redis.port", () -> REDIS.port);
    }

    @AfterAll
    static void stopRedis(@Autowired RabbitListenerEndpointRegistry registry) throws InterruptedException {
        registry.stop();
        REDIS.close();
    }

    @Test
    void startsWithTheStoreDownTakesNoDeliveryAndProcessesEveryMessageOnceWhenItIsBack() throws Exception {
        String single = queue("single");
        assertThat(health()).isEqualTo("DOWN");
        assertThat(running(single)).as("the listener's container runs").isFalse();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String id = "down-" + UUID.randomUUID();
            ids.add(id);
            template.send("", single, message(id, "pay"));
            template.send("", single, message(id, "pay"));
        }
        // It probes the store with back-off meanwhile, and takes no delivery.
        await().atMost(Duration.ofSeconds(15)).until(() -> counted("once.consumer.pauses", single) >= 3);
        assertThat(paused(single)).isEqualTo(1);
        assertThat(Scenarios.count(admin, single)).as("messages waiting").isEqualTo(10);
        assertThat(ids).allMatch(id -> listeners.effects(id) == 0);

        REDIS.start();
        await().atMost(Duration.ofSeconds(15)).until(() -> health().equals("UP"));
        await().atMost(Duration.ofSeconds(20)).until(() -> running(single)
                && ids.stream().allMatch(id -> listeners.effects(id) >= 1) && quiet(single));
        for (String id : ids) {
            assertThat(listeners.effects(id)).as(id).isEqualTo(1);
        }
        assertThat(paused(single)).isZero();
        assertThat(counted("once.consumer.resumes", single)).isEqualTo(1);
    }

    @Test
    void failFastFailsTheStartWhileTheStoreIsDown() {
        int nothingThere = spare().port; // not this class's server, which the other test starts
        List<String> properties = new ArrayList<>(List.of("spring.rabbitmq.host=127.0.0.1", "once.store=redis",
                "once.fail-fast=true", "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
                "spring.datasource.username=postgres", "spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=" + nothingThere, "once.redis.timeout=500ms"));
        for (String q : Scenarios.QUEUES) {
            properties.add("scenario." + q + "=" + Scenarios.queueName("fail-fast-" + q));
        }
        new ApplicationContextRunner()
                .withUserConfiguration(ScenarioApp.class)
                .withPropertyValues(properties.toArray(String[]::new))
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).hasStackTraceContaining("onceStore")
                            .hasStackTraceContaining("127.0.0.1:" + nothingThere);
                });
    }
}
