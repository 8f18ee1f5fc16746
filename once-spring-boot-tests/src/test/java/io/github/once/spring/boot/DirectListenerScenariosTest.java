package io.github.once.spring.boot;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.batch.SimpleBatchingStrategy;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.core.BatchingRabbitTemplate;
import org.springframework.amqp.rabbit.listener.DirectMessageListenerContainer;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import static io.github.once.spring.boot.Scenarios.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The consumer scenarios on {@code DirectMessageListenerContainer}s ({@code spring.rabbitmq.listener.type=direct}).
 * A direct container does not batch on the consumer side; its batch listener gets the batches a producer made,
 * each one AMQP message with one key.
 */
@TestPropertySource(properties = "spring.rabbitmq.listener.type=direct")
class DirectListenerScenariosTest extends ListenerScenariosContract {

    @DynamicPropertySource
    static void names(DynamicPropertyRegistry r) {
        Scenarios.register(r, "direct");
    }

    @Autowired
    ConnectionFactory connectionFactory;

    @Test
    void listenersRunOnDirectContainers() {
        assertThat(registry.getListenerContainers()).allMatch(c -> c instanceof DirectMessageListenerContainer);
    }

    @Test
    void producerBatchRunsOnceAndItsResendIsADuplicate() {
        String batch = queue("batch");
        String first = id("pb");
        List<String> bodies = List.of("a-" + UUID.randomUUID(), "b-" + UUID.randomUUID(), "c-" + UUID.randomUUID());
        ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
        scheduler.initialize();
        try {
            BatchingRabbitTemplate batching = new BatchingRabbitTemplate(connectionFactory,
                    new SimpleBatchingStrategy(3, 64 * 1024, 30_000), scheduler);
            // Sent twice; the batch carries the properties of its first message, so its key is that message's id.
            for (int round = 0; round < 2; round++) {
                for (String body : bodies) {
                    Message m = message(first, body);
                    m.getMessageProperties().setContentType(MessageProperties.CONTENT_TYPE_TEXT_PLAIN);
                    batching.send("", batch, m);
                }
                batching.flush();
            }
        } finally {
            scheduler.shutdown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> action(batch, "duplicate") >= 1 && quiet(batch));
        assertThat(listeners.batchBodies.stream().filter(b -> b.equals(bodies))).hasSize(1);
        assertThat(action(batch, "processed")).isEqualTo(1);
        assertThat(action(batch, "duplicate")).isEqualTo(1);
    }
}
