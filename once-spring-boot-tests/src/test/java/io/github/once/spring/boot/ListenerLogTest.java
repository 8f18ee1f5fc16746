package io.github.once.spring.boot;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.github.once.rabbitmq.ProcessingLog;
import io.github.once.spring.rabbit.Once;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @Once} listener writes the processing log {@code OnceConsumer} writes: an INFO line when it starts, a
 * WARN line per failed attempt with the error and the next attempt, and a WARN line for the dead letter with its
 * reason, each with the queue, namespace and key; and, when the containers' broker connection is closed from the
 * broker's side, a line for the loss and one for the recovery (captured from logger {@value ProcessingLog#LOGGER}).
 */
@SpringBootTest(classes = ListenerLogTest.App.class, properties = {
        "spring.rabbitmq.host=127.0.0.1",
        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test", // on the class path; unused here
        "spring.datasource.username=postgres",
        "once.store=memory",
        "once.retry.max-attempts=2",
        "once.retry.backoff=30ms"})
class ListenerLogTest {
    static final String QUEUE = Scenarios.queueName("log");
    static final ListAppender<ILoggingEvent> LINES = new ListAppender<>();
    static final ConnectionName CONNECTION = ConnectionName.fresh();

    @DynamicPropertySource
    static void queue(DynamicPropertyRegistry r) {
        r.add("app.queue", () -> QUEUE);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @Import(Payments.class)
    static class App {
        /**
         * Attached as a bean: Boot sets logging up anew when the context starts, dropping appenders added before,
         * and the listeners' start lines are written once every bean is made.
         */
        @Bean
        ConnectionName connectionName() {
            return CONNECTION;
        }

        @Bean
        ListAppender<ILoggingEvent> processingLines() {
            Logger logger = (Logger) LoggerFactory.getLogger(ProcessingLog.LOGGER);
            logger.setLevel(Level.INFO);
            LINES.start();
            logger.addAppender(LINES);
            return LINES;
        }
    }

    /** Always fails. */
    public static class Payments {
        @RabbitListener(queuesToDeclare = @Queue("${app.queue}"))
        @Once
        public void handle(Message message) {
            throw new IllegalStateException("card declined");
        }
    }

    @Autowired
    RabbitTemplate template;
    @Autowired
    AmqpAdmin admin;

    @Test
    void failedAttemptsAndTheDeadLetterAreLoggedWithTheirReason() {
        template.send("", QUEUE, Scenarios.message("pay-1", "{}"));

        await().atMost(Duration.ofSeconds(20)).until(() -> lines("Delivery dead-lettered").size() == 1);

        assertThat(lines("Consumer started")).singleElement().satisfies(e -> {
            assertThat(e.getLevel()).isEqualTo(Level.INFO);
            assertThat(pairs(e)).containsEntry("queue", QUEUE);
        });
        assertThat(lines("Delivery retried-failed")).singleElement().satisfies(e -> {
            assertThat(e.getLevel()).isEqualTo(Level.WARN);
            assertThat(pairs(e)).containsEntry("queue", QUEUE).containsEntry("namespace", QUEUE)
                    .containsEntry("key", "pay-1").containsEntry("attempt", "1")
                    .containsEntry("nextAttempt", "2").containsEntry("outcome", "failed")
                    .containsEntry("cause", "java.lang.IllegalStateException: card declined");
        });
        assertThat(lines("Delivery dead-lettered")).singleElement().satisfies(e -> {
            assertThat(e.getLevel()).isEqualTo(Level.WARN);
            assertThat(pairs(e)).containsEntry("key", "pay-1").containsEntry("attempt", "2")
                    .containsEntry("reason", "max-attempts");
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> Scenarios.count(admin, QUEUE + ".once.dlq") == 1);
    }

    @Test
    void aLostBrokerConnectionAndItsRecoveryAreLogged() {
        // The containers hold their connection open from the start.
        await().atMost(Duration.ofSeconds(20)).until(() -> CONNECTION.closeFromBroker() > 0);

        await().atMost(Duration.ofSeconds(30)).until(() ->
                !lines("Connection to the broker recovered").isEmpty());
        assertThat(lines("Connection to the broker lost; waiting for automatic recovery")).isNotEmpty()
                .allSatisfy(e -> {
                    assertThat(e.getLevel()).isEqualTo(Level.INFO);
                    assertThat(pairs(e)).containsEntry("broker", "127.0.0.1:5672").containsKey("cause");
                });
        assertThat(lines("Connection to the broker recovered")).first()
                .satisfies(e -> assertThat(pairs(e)).containsEntry("broker", "127.0.0.1:5672").containsKey("lostMs"));
    }

    private static List<ILoggingEvent> lines(String message) {
        synchronized (LINES) {
            return LINES.list.stream()
                    .filter(e -> e.getMessage().equals(message) && QUEUE.equals(pairs(e).get("queue"))).toList();
        }
    }

    private static Map<String, String> pairs(ILoggingEvent e) {
        return e.getKeyValuePairs() == null ? Map.of() : e.getKeyValuePairs().stream()
                .collect(Collectors.toMap(p -> p.key, p -> String.valueOf(p.value), (a, b) -> a));
    }

    @AfterAll
    static void cleanUp(@Autowired RabbitListenerEndpointRegistry listeners, @Autowired AmqpAdmin admin) {
        listeners.stop();
        ((Logger) LoggerFactory.getLogger(ProcessingLog.LOGGER)).detachAppender(LINES);
        Scenarios.deleteAll(admin, QUEUE);
    }
}
