package io.github.once.spring.boot;

import io.github.once.IdempotencyKey;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spring.rabbit.Once;
import io.github.once.testkit.StoreCalls;

import java.nio.charset.StandardCharsets;
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
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What {@code @Once}'s attributes take. {@code ${...}} placeholders and {@code #{...}} expressions resolve as those
 * of {@code @RabbitListener} do: the namespace {@code #{'orders-' + '${app.env}'}} becomes {@code orders-staging},
 * and the key header named by {@code ${app.key-header}} keys the messages (two messages with one header value are
 * one effect); a namespace that resolves to something invalid stops the application, naming the queue.
 * {@code field} reads the key from the raw JSON body with no JSON {@code MessageConverter} in the application
 * (Spring's default {@code SimpleMessageConverter}): two bodies with one order id are one effect, and a body
 * without the field is dead-lettered as {@code missing-key} with the detail.
 */
@SpringBootTest(classes = OnceAttributesTest.App.class, properties = {
        "spring.rabbitmq.host=127.0.0.1",
        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test", // on the class path; unused here
        "spring.datasource.username=postgres",
        "once.store=memory",
        "app.env=staging",
        "app.key-header=x-order-id"})
class OnceAttributesTest {
    static final String QUEUE = Scenarios.queueName("placeholder");
    static final String BODY_QUEUE = Scenarios.queueName("body-key");

    @DynamicPropertySource
    static void queue(DynamicPropertyRegistry r) {
        r.add("app.queue", () -> QUEUE);
        r.add("app.body-queue", () -> BODY_QUEUE);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import({Orders.class, Bodies.class})
    static class App {
    }

    /** Counts its calls per key header value. */
    public static class Orders {
        static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

        @RabbitListener(queuesToDeclare = @Queue("${app.queue}"))
        @Once(namespace = "#{'orders-' + '${app.env}'}", header = "${app.key-header}")
        public void handle(Message message) {
            String id = String.valueOf(message.getMessageProperties().getHeaders().get("x-order-id"));
            CALLS.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
        }
    }

    /** Counts its calls per message body. */
    public static class Bodies {
        static final Map<String, AtomicInteger> CALLS = new ConcurrentHashMap<>();

        @RabbitListener(queuesToDeclare = @Queue("${app.body-queue}"))
        @Once(field = "/order/id")
        public void handle(Message message) {
            String body = new String(message.getBody(), StandardCharsets.UTF_8);
            CALLS.computeIfAbsent(body, k -> new AtomicInteger()).incrementAndGet();
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

    @Test
    void anInvalidResolvedNamespaceStopsTheApplicationNamingTheListener() {
        new ApplicationContextRunner()
                .withUserConfiguration(App.class)
                .withPropertyValues("spring.rabbitmq.host=127.0.0.1",
                        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
                        "spring.datasource.username=postgres", "once.store=memory",
                        "app.queue=" + QUEUE + "-bad", "app.body-queue=" + BODY_QUEUE + "-bad",
                        "app.env=" + "x".repeat(70), "app.key-header=x-order-id")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure())
                            .hasStackTraceContaining("@Once on the listener of queue " + QUEUE + "-bad is invalid")
                            .hasStackTraceContaining("namespace must be");
                });
    }

    @Test
    void theKeyIsReadFromTheRawJsonBody() {
        String body = "{\"order\": {\"id\": \"B-9\", \"sku\": \"book\"}}";
        for (String messageId : List.of("m-1", "m-2")) { // two message ids, one order id: one effect
            template.send("", BODY_QUEUE, Scenarios.message(messageId, body));
        }
        template.send("", BODY_QUEUE, Scenarios.message("m-3", "{\"order\": {\"sku\": \"pen\"}}"));

        await().atMost(Duration.ofSeconds(20)).until(() -> StoreCalls.find(store,
                IdempotencyKey.of(BODY_QUEUE, "B-9")).isPresent() && Scenarios.count(admin, BODY_QUEUE + ".once.dlq") == 1
                && Scenarios.count(admin, BODY_QUEUE) == 0);
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5))
                .until(() -> Scenarios.count(admin, BODY_QUEUE) == 0);

        assertThat(Bodies.CALLS.get(body)).as("calls for order B-9").hasValue(1);
        assertThat(Bodies.CALLS).hasSize(1);
        Message dead = template.receive(BODY_QUEUE + ".once.dlq");
        assertThat(dead.getMessageProperties().getMessageId()).isEqualTo("m-3");
        assertThat(Scenarios.header(dead, "x-once-reason")).isEqualTo("missing-key");
        assertThat(Scenarios.header(dead, "x-once-detail")).contains("/order/id");
    }

    @AfterAll
    static void cleanUp(@Autowired RabbitListenerEndpointRegistry listeners, @Autowired AmqpAdmin admin) {
        listeners.stop();
        Scenarios.deleteAll(admin, QUEUE, QUEUE + "-bad", BODY_QUEUE);
    }
}
