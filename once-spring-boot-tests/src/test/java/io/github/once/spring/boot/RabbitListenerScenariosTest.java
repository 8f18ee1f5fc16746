package io.github.once.spring.boot;

import io.github.once.rabbitmq.OnceHeaders;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.github.once.spring.boot.Scenarios.count;
import static io.github.once.spring.boot.Scenarios.drain;
import static io.github.once.spring.boot.Scenarios.header;
import static io.github.once.spring.boot.Scenarios.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The consumer scenarios on Boot's default {@code SimpleMessageListenerContainer}, and the batch listener's with
 * consumer batching (a claim of the whole batch in one call).
 */
class RabbitListenerScenariosTest extends ListenerScenariosContract {

    @DynamicPropertySource
    static void names(DynamicPropertyRegistry r) {
        Scenarios.register(r, "simple");
    }

    @Test
    void listenersRunOnSimpleContainers() {
        assertThat(registry.getListenerContainers()).allMatch(c -> c instanceof SimpleMessageListenerContainer);
    }

    @Test
    void batchProducerResendBecomesAHarmlessDuplicate() {
        String batch = queue("batch");
        List<String> ids = List.of(id("b"), id("b"), id("b"));
        for (String id : ids) {
            template.send("", batch, message(id, "item"));
            template.send("", batch, message(id, "item"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream().allMatch(i -> listeners.effects("batch:" + i) == 1));
        awaitEmpty(batch);
        for (String id : ids) {
            assertThat(listeners.effects("batch:" + id)).isEqualTo(1);
        }
    }

    @Test
    void batchPoisonMessageIsDeadLetteredAfterMaxAttemptsWithItsCause() {
        String batch = queue("batch");
        String bad = id("bpoison");
        template.send("", batch, message(bad, "fail"));
        String dlq = batch + ".once.dlq";
        await().atMost(Duration.ofSeconds(15)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> bad.equals(m.getMessageProperties().getMessageId())).toList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("max-attempts");
        assertThat(header(dead.get(0), OnceHeaders.ATTEMPTS)).isEqualTo("3");
        assertThat(listeners.effects("batch:" + bad)).isZero();
    }

    @Test
    void batchCopyReturnedTooOftenIsDeadLetteredAsACrashLoopTheOthersRun() {
        String batch = queue("batch");
        String looping = id("bloop");
        String fine = id("bfine");
        Message m = message(looping, "item");
        m.getMessageProperties().setHeader("x-delivery-count", 1_000L);
        template.send("", batch, m);
        template.send("", batch, message(fine, "item"));
        String dlq = batch + ".once.dlq";
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, dlq) >= 1 && listeners.effects("batch:" + fine) == 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(d -> looping.equals(d.getMessageProperties().getMessageId())).toList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("crash-loop");
        assertThat(listeners.effects("batch:" + looping)).isZero();
        assertThat(listeners.effects("batch:" + fine)).isEqualTo(1);
    }

    @Test
    void batchMessageWithoutIdIsDeadLetteredNeverDropped() {
        String batch = queue("batch");
        String marker = "batch-no-id-" + UUID.randomUUID();
        template.send("", batch, message(null, marker));
        String dlq = batch + ".once.dlq";
        await().atMost(Duration.ofSeconds(10)).until(() -> count(admin, dlq) >= 1);
        List<Message> dead = drain(template, dlq).stream()
                .filter(m -> new String(m.getBody(), java.nio.charset.StandardCharsets.UTF_8).equals(marker)).toList();
        assertThat(dead).hasSize(1);
        assertThat(header(dead.get(0), OnceHeaders.REASON)).isEqualTo("missing-key");
    }

    @Test
    void batchMetersCountEveryDeliveryOfTheContainersBatches() {
        String batch = queue("batch");
        double deliveries = counted("once.consumer.deliveries", batch);
        var sizes = meters.find("once.consumer.batch.size").tag("queue", batch).summary();
        double before = sizes == null ? 0 : sizes.totalAmount();
        List<String> ids = List.of(id("bm"), id("bm"), id("bm"));
        for (String id : ids) {
            template.send("", batch, message(id, "item"));
            template.send("", batch, message(id, "item"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> counted("once.consumer.deliveries", batch) - deliveries == 6
                && quiet(batch));
        var after = meters.get("once.consumer.batch.size").tag("queue", batch).summary();
        assertThat(after.totalAmount() - before).isEqualTo(6);
        assertThat(after.max()).isLessThanOrEqualTo(10);
        assertThat(ids).allMatch(id -> listeners.effects("batch:" + id) == 1);
    }
}
