package io.github.once.rabbitmq;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The outage suite with a pipelined consumer over a private Redis. In a pipeline some handler is nearly always
 * between its claim and its record while messages flow (the point of it), so "between messages" is staged where
 * the consumer is really between them: the first messages processed and acked, the rest not yet published.
 */
class PipelinedRedisStoreOutageTest extends RedisStoreOutageTest {

    private static final int FIRST = 200;

    @Override
    protected OnceConsumer.Builder mode(OnceConsumer.Builder builder) {
        return builder.pipelined(true);
    }

    @Test
    @Override
    void storeStoppedBetweenMessagesPausesAndResumesNothingLostNothingDoubled() throws Exception {
        RecordingListener listener = new RecordingListener();
        OnceConsumer consumer = start(1, listener);
        publish(0, FIRST);
        await().atMost(Duration.ofSeconds(30)).until(() -> listener.count(ConsumerAction.PROCESSED) == FIRST
                && consumer.inFlight() == 0);
        stopStore();
        publish(FIRST, MESSAGES);

        await().atMost(Duration.ofSeconds(30)).until(consumer::isPaused);
        // The consumer keeps probing with back-off, and runs no handler without a claim.
        await().atMost(Duration.ofSeconds(20)).until(() -> listener.pauses.get() >= 3);
        assertThat(variant.totalEffects()).isEqualTo(FIRST);
        assertThat(listener.count(ConsumerAction.REQUEUED)).isPositive();

        restartStore();
        awaitAllDoneAndQuiet(consumer);
        assertThat(variant.totalEffects()).isEqualTo(MESSAGES);
        assertThat(listener.resumes.get()).isPositive();
        assertThat(consumer.isPaused()).isFalse();
        assertThat(listener.count(ConsumerAction.DEAD_LETTERED)).isZero();
    }
}
