package io.github.once.micrometer;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.DeadLetterReason;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link Listeners#consumer} hands every consumer event to each listener, even past one that throws. */
class ListenersTest {

    @Test
    void deadLetterRetryAndBatchReachEveryListener() {
        List<String> heard = new CopyOnWriteArrayList<>();
        ConsumerListener throwing = new ConsumerListener() {
            @Override
            public void onDeadLetter(Delivery d, IdempotencyKey key, DeadLetterReason reason, Throwable cause) {
                throw new IllegalStateException("broken listener");
            }

            @Override
            public void onRetry(Delivery d, IdempotencyKey key, ConsumerAction action, int next, Duration delay) {
                throw new IllegalStateException("broken listener");
            }

            @Override
            public void onBatch(int size) {
                throw new IllegalStateException("broken listener");
            }
        };
        ConsumerListener recording = new ConsumerListener() {
            @Override
            public void onDeadLetter(Delivery d, IdempotencyKey key, DeadLetterReason reason, Throwable cause) {
                heard.add("dead-letter " + reason.code() + " " + key);
            }

            @Override
            public void onRetry(Delivery d, IdempotencyKey key, ConsumerAction action, int next, Duration delay) {
                heard.add("retry " + action + " " + next + " " + delay.toMillis());
            }

            @Override
            public void onBatch(int size) {
                heard.add("batch " + size);
            }
        };
        ConsumerListener both = Listeners.consumer(throwing, recording);
        Delivery d = new Delivery(new Envelope(1, false, "", "orders"), new AMQP.BasicProperties(), new byte[0]);

        both.onDeadLetter(d, null, DeadLetterReason.MISSING_KEY, null);
        both.onRetry(d, IdempotencyKey.of("orders", "1"), ConsumerAction.RETRIED_FAILED, 2, Duration.ofSeconds(1));
        both.onBatch(7);

        assertThat(heard).containsExactly("dead-letter missing-key null", "retry RETRIED_FAILED 2 1000", "batch 7");
    }
}
