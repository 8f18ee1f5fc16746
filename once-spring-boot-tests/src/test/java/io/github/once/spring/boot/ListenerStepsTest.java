package io.github.once.spring.boot;

import io.github.once.ExecutionContext;
import io.github.once.IdempotencyKey;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spring.rabbit.Once;
import io.github.once.spring.rabbit.OnceContext;
import io.github.once.testkit.StoreCalls;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.github.once.spring.boot.Scenarios.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @Once} listener reaches its message's execution through {@link OnceContext#current()}: a step done
 * before the listener failed is skipped on the retry (its stored result returned), and the operation key for an
 * external API is the same on every attempt. On the real RabbitMQ and Redis.
 */
@SpringBootTest(classes = ListenerStepsTest.App.class, properties = {
        "spring.rabbitmq.host=127.0.0.1",
        "once.store=redis",
        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
        "spring.datasource.username=postgres",
        "spring.data.redis.host=127.0.0.1",
        "spring.data.redis.port=6379",
        "once.lease=2s",
        "once.retry.max-attempts=3",
        "once.retry.backoff=30ms,60ms,120ms"})
class ListenerStepsTest {
    static final String QUEUE = Scenarios.queueName("steps");

    @DynamicPropertySource
    static void names(DynamicPropertyRegistry r) {
        r.add("scenario.steps", () -> QUEUE);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        @Bean
        Payments payments() {
            return new Payments();
        }
    }

    /** Charges once per message through a step, then fails the first attempt of each message after the charge. */
    public static class Payments {
        final AtomicInteger calls = new AtomicInteger();
        final Map<String, AtomicInteger> charges = new ConcurrentHashMap<>();
        final Map<String, List<String>> chargeResults = new ConcurrentHashMap<>();
        final Map<String, List<String>> operationKeys = new ConcurrentHashMap<>();
        final Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();

        @RabbitListener(queuesToDeclare = @Queue("${scenario.steps}"))
        @Once
        public void handle(Message message) throws Exception {
            calls.incrementAndGet();
            String id = message.getMessageProperties().getMessageId();
            ExecutionContext once = OnceContext.current();
            operationKeys.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(once.operationKey("payment"));
            String charged = once.step("charge", () -> "charge-"
                    + charges.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet());
            chargeResults.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(charged);
            if (attempts.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet() == 1) {
                throw new IllegalStateException("the notification after the charge failed");
            }
        }
    }

    @Autowired
    RabbitTemplate template;
    @Autowired
    Payments payments;
    @Autowired
    IdempotencyStore store;

    @AfterAll
    static void cleanUp(@Autowired org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry listeners,
                        @Autowired AmqpAdmin admin) {
        listeners.stop();
        Scenarios.deleteAll(admin, QUEUE);
    }

    @Test
    void aRetriedMessageSkipsItsDoneStepAndKeepsItsOperationKey() {
        String id = "order-" + UUID.randomUUID();
        template.send("", QUEUE, message(id, "pay 10"));

        await().atMost(Duration.ofSeconds(15)).until(() -> StoreCalls.find(store, IdempotencyKey.of(QUEUE, id)).isPresent()
                && payments.attempts.getOrDefault(id, new AtomicInteger()).get() == 2);
        assertThat(payments.charges.get(id)).as("charges").hasValue(1);
        assertThat(payments.chargeResults.get(id)).as("the step's result on each attempt")
                .containsExactly("charge-1", "charge-1");
        List<String> keys = payments.operationKeys.get(id);
        assertThat(keys).hasSize(2);
        assertThat(keys.get(1)).isEqualTo(keys.get(0)).isEqualTo(QUEUE + ":" + id + ":payment");
    }

    @Test
    void outsideAOnceListenerThereIsNoContext() {
        assertThatThrownBy(OnceContext::current).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("inside a @Once listener method");
    }
}
