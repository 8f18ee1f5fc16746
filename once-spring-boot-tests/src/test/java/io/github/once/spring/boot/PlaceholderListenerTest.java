package io.github.once.spring.boot;

import io.github.once.IdempotencyKey;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spring.rabbit.Once;
import io.github.once.testkit.StoreCalls;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code ${...}} placeholders in {@code @Once} resolve from the environment, as those of {@code @RabbitListener}
 * do: the namespace {@code orders-${app.env}} becomes {@code orders-staging}, and the key header named by
 * {@code ${app.key-header}} keys the messages (two messages with one header value are one effect).
 */
@SpringBootTest(classes = PlaceholderListenerTest.App.class, properties = {
        "spring.rabbitmq.host=127.0.0.1",
        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test", // on the class path; unused here
        "spring.datasource.username=postgres",
        "once.store=memory",
        "app.env=staging",
        "app.key-header=x-order-id"})
class PlaceholderListenerTest {
    static final String QUEUE = Scenarios.queueName("placeholder");

    @DynamicPropertySource
    static void queue(DynamicPropertyRegistry r) {
        r.add("app.queue", () -> QUEUE);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(Orders.class)
    static class App {
    }

    /** Counts its calls per key header value. */
    public static class Orders {
        static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

        @RabbitListener(queuesToDeclare = @Queue("${app.queue}"))
        @Once(namespace = "orders-${app.env}", header = "${app.key-header}")
        public void handle(Message message) {
            String id = String.valueOf(message.getMessageProperties().getHeaders().get("x-order-id"));
            CALLS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        }
    }

    @Autowired
    RabbitTemplate template;
    @Autowired
    AmqpAdmin admin;
    @Autowired
    IdempotencyStore store;

    @Test
    void theNamespaceAndTheKeyHeaderComeFromTheEnvironment() {
        for (String messageId : List.of("m-1", "m-2")) { // two message ids, one order id: one effect
            Message m = Scenarios.message(messageId, "{}");
            m.getMessageProperties().setHeader("x-order-id", "A-7");
            template.send("", QUEUE, m);
        }

        await().atMost(Duration.ofSeconds(20)).until(() -> StoreCalls.find(store,
                IdempotencyKey.of("orders-staging", "A-7")).isPresent() && Scenarios.count(admin, QUEUE) == 0);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                .until(() -> Scenarios.count(admin, QUEUE) == 0);

        assertThat(Orders.CALLS.get("A-7")).as("calls for order A-7").hasValue(1);
        assertThat(Scenarios.count(admin, QUEUE + ".once.dlq")).as("dead letters").isZero();
    }

    @AfterAll
    static void cleanUp(@Autowired RabbitListenerEndpointRegistry listeners, @Autowired AmqpAdmin admin) {
        listeners.stop();
        Scenarios.deleteAll(admin, QUEUE);
    }
}
