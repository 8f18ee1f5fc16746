package io.github.once.rabbitmq;

import io.github.once.IdempotentExecutor;
import io.github.once.OnceListener;
import io.github.once.StoreOperation;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The whole scenario suite with every consumer pipelined. One scenario is set up another way: the pipelined mode
 * needs the executor itself (a wrapper around it is refused at build), so the lost ack is staged from the
 * executor's listener instead, which hears the completion call on the consumer's thread before its verdict is
 * settled (in a transactional scope, before its group commits: a group of one records with a single call).
 */
abstract class PipelinedConsumerScenariosContract extends ConsumerScenariosContract {

    @Override
    protected OnceConsumer.Builder mode(OnceConsumer.Builder builder) {
        return builder.pipelined(true);
    }

    @Test
    @Override
    void lostAckAfterTheRecordIsAbsorbedOnRedelivery() throws Exception {
        RecordingListener listener = new RecordingListener();
        OnceConsumer[] self = new OnceConsumer[1];
        AtomicBoolean closed = new AtomicBoolean();
        // Between the recorded completion and the ack, the channel goes away: the ack is lost.
        IdempotentExecutor closingBeforeAck = variant.executor(LEASE, new OnceListener() {
            @Override
            public void onStoreCall(StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
                boolean completion = operation == StoreOperation.COMPLETE_ALL || operation == StoreOperation.COMPLETE;
                if (completion && failure == null && closed.compareAndSet(false, true)) {
                    try {
                        self[0].workers().get(0).channel().close();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        });
        executors.add(closingBeforeAck);
        self[0] = start(rabbit.connect(), closingBeforeAck, effect(), listener, b -> b);
        publisher(rabbit.connect()).publish(message(rabbit.queue, "ack-1", "ship"));

        await().atMost(Duration.ofSeconds(10)).until(() -> listener.count(ConsumerAction.DUPLICATE) == 1);
        assertThat(closed.get()).isTrue();
        assertThat(listener.count(ConsumerAction.ABANDONED)).isEqualTo(1);
        assertThat(listener.count(ConsumerAction.PROCESSED)).isZero();
        assertThat(variant.effects("ack-1")).isEqualTo(1);
        awaitQuiet(self[0]);
    }
}
