package io.github.once.spring.boot;

import io.github.once.IdempotencyKey;
import io.github.once.RecordState;
import io.github.once.testkit.StoreCalls;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static io.github.once.spring.boot.Scenarios.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store outage scenarios on Boot's default {@code SimpleMessageListenerContainer}; and the store stopped between
 * messages, where the health indicator and the pause meters follow too (what they show does not depend on the kind
 * of container).
 */
class StoreOutageTest extends ListenerStoreOutageContract {
    @DynamicPropertySource
    static void names(DynamicPropertyRegistry r) {
        register(r, "outage");
    }

    /** What the listener of {@code queue} shows, for a failure message. */
    private String state(String queue, List<String> ids) {
        StringBuilder s = new StringBuilder("containers running: " + running(queue) + ", paused gauge: "
                + paused(queue) + ", ready in the queue: " + Scenarios.count(admin, queue) + ", in flight: "
                + inFlight(queue) + ", dead letters: " + Scenarios.count(admin, queue + ".once.dlq"));
        for (String id : ids) {
            IdempotencyKey key = IdempotencyKey.of(queue, id);
            s.append("\n  ").append(id).append(": effects ").append(listeners.effects(id)).append(", claims ")
                    .append(store.claims(key)).append(", record ").append(StoreCalls.find(store, key));
        }
        return s.append(RabbitCtl.diagnose(queue)).toString();
    }

    @Test
    void storeStoppedBetweenMessagesPausesAndResumesNothingLostNothingDoubledAndHealthFollows() throws Exception {
        String single = Scenarios.queue(env, "single");
        assertThat(health()).isEqualTo("UP");
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String id = "before-" + UUID.randomUUID();
            ids.add(id);
            template.send("", single, message(id, "pay"));
        }
        // Stopped between messages: every record written, not only every effect done.
        await().atMost(Duration.ofSeconds(10)).until(() -> ids.stream().allMatch(id -> StoreCalls.find(store,
                IdempotencyKey.of(single, id)).filter(r -> r.state() == RecordState.COMPLETED).isPresent()));
        double pauses = counted("once.consumer.pauses", single);
        double resumes = counted("once.consumer.resumes", single);

        redis().stop();
        await().atMost(Duration.ofSeconds(10)).until(() -> health().equals("DOWN"));
        for (int i = 0; i < 5; i++) {
            String id = "during-" + UUID.randomUUID();
            ids.add(id);
            template.send("", single, message(id, "pay"));
            template.send("", single, message(id, "pay"));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> !running(single) && paused(single) == 1);

        redis().start();
        await().atMost(Duration.ofSeconds(15)).until(() -> health().equals("UP"));
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> ids.stream().allMatch(id -> listeners.effects(id) >= 1));
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("not every message had its effect after the store came back; " + state(single, ids), e);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> running(single));
        for (String id : ids) {
            assertThat(listeners.effects(id)).as(id).isEqualTo(1);
        }
        assertThat(counted("once.consumer.pauses", single) - pauses).isPositive();
        assertThat(counted("once.consumer.resumes", single) - resumes).isEqualTo(1);
        assertThat(paused(single)).isZero();
    }
}
