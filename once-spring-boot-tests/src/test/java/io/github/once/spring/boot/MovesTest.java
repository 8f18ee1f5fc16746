package io.github.once.spring.boot;

import io.github.once.rabbitmq.OnceHeaders;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.github.once.spring.boot.Scenarios.count;
import static io.github.once.spring.boot.Scenarios.drain;
import static io.github.once.spring.boot.Scenarios.header;
import static io.github.once.spring.boot.Scenarios.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Once's moved copies (retries, dead letters): they reach the broker the way the application's own connections do,
 * and a copy the broker does not take pauses the listener instead of sending the message round again at once.
 * {@code spring.rabbitmq.addresses} names first a port where nothing listens, then the broker.
 */
class MovesTest extends ScenarioSupport {
    private static final int NOTHING_THERE = Scenarios.portWithNothingListening();

    @DynamicPropertySource
    static void names(DynamicPropertyRegistry r) {
        Scenarios.register(r, "addresses");
        r.add("spring.rabbitmq.addresses", () -> "127.0.0.1:" + NOTHING_THERE + ",127.0.0.1:5672");
    }

    /**
     * The listener connects through the second address, and so do the moves: a listener that always fails is
     * retried through the delay queues and dead-lettered after its attempts. (When the moves used the first address
     * alone, every move was refused and the message went back at once, again and again, and never left the queue.)
     */
    @Test
    void aFailingListenerIsRetriedAndDeadLetteredThroughTheSecondAddress() {
        String single = queue("single");
        String id = "addresses-" + UUID.randomUUID();
        template.send("", single, message(id, "fail"));
        String dlq = single + ".once.dlq";
        await().atMost(Duration.ofSeconds(20)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> id.equals(m.getMessageProperties().getMessageId())).toList();
        assertThat(dead).hasSize(1);
        assertThat(new String(dead.get(0).getBody(), StandardCharsets.UTF_8)).isEqualTo("fail");
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("max-attempts");
        assertThat(header(dead.get(0), OnceHeaders.ATTEMPTS)).isEqualTo("3");
    }

    /**
     * A retry's delay queue deleted under the running listener: its copy comes back unroutable, the message goes
     * back and the queue's containers pause, so the handler runs a few times a second at most, not in a hot loop;
     * once the delay queue exists again the message takes its retries and is dead-lettered after its attempts.
     */
    @Test
    void aCopyTheBrokerRefusesPausesTheListenerInsteadOfLoopingHot() {
        String single = queue("single");
        String first = "declares-" + UUID.randomUUID();
        template.send("", single, message(first, "pay")); // the first delivery declares the retry queues
        await().atMost(Duration.ofSeconds(10)).until(() -> listeners.effects(first) == 1);
        admin.deleteQueue(single + ".once.delay.30");
        String id = "unroutable-" + UUID.randomUUID();
        int before = listeners.calls.get();
        template.send("", single, message(id, "fail"));
        await().atMost(Duration.ofSeconds(10)).until(() -> paused(single) == 1);
        // Paused and probing: over the next 3 s the handler runs no more than the pause's back-off allows.
        await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                .until(() -> listeners.calls.get() - before <= 20);

        template.execute(channel -> {
            Topology.retryQueuesOnly(Topology.QueueType.CLASSIC).declare(channel, single, RetryPolicy.builder()
                    .maxAttempts(3).backoff(Duration.ofMillis(30), Duration.ofMillis(60), Duration.ofMillis(120))
                    .build());
            return null;
        });
        String dlq = single + ".once.dlq";
        await().atMost(Duration.ofSeconds(20)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> id.equals(m.getMessageProperties().getMessageId())).toList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("max-attempts");
    }
}
