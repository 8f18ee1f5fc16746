package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store stops mid-run and comes back: consumption pauses (deliveries in hand go back), the store is probed
 * with back-off, consumption resumes, and in the end every message has had its effect, none twice.
 */
abstract class StoreOutageContract {

    static final int MESSAGES = 600;
    static final RetryPolicy FAST = ConsumerScenariosContract.FAST;

    protected RabbitFixture rabbit;
    protected StoreVariant variant;
    private final List<Idempotency> executors = new ArrayList<>();

    /** Starts the store and returns the variant that uses it. */
    protected abstract StoreVariant startStore() throws Exception;

    protected abstract void stopStore() throws Exception;

    protected abstract void restartStore() throws Exception;

    /** Effects that may legitimately repeat when the store dies at an arbitrary moment (0 if none may). */
    protected abstract long repeatsAllowed();

    /** Where the allowance comes from, for the test's output. */
    protected String allowanceSource() {
        return "";
    }

    protected abstract void stopEverything() throws Exception;

    @BeforeEach
    void setUp() throws Exception {
        rabbit = new RabbitFixture();
        rabbit.remember(FAST);
        variant = startStore();
    }

    @AfterEach
    void tearDown() throws Exception {
        try {
            rabbit.close();
        } finally {
            executors.forEach(Idempotency::close);
            variant.close();
            stopEverything();
        }
    }

    OnceConsumer start(int channels, RecordingListener listener) throws Exception {
        Idempotency executor = variant.executor(Duration.ofSeconds(1));
        executors.add(executor);
        return rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, executor)
                .handler((d, ctx) -> variant.effect(ctx.key().id(), ctx))
                .listener(listener)
                .retry(FAST)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .channels(channels)
                .prefetch(20)
                .storeBackoff(Duration.ofMillis(100), Duration.ofMillis(400))
                .shutdownTimeout(Duration.ofSeconds(5))
                .build().start());
    }

    void publish() throws Exception {
        publish(0, MESSAGES);
    }

    /** Publishes messages {@code from} (inclusive) to {@code to} (exclusive). */
    void publish(int from, int to) throws Exception {
        List<OutboundMessage> messages = new ArrayList<>();
        for (int i = from; i < to; i++) {
            messages.add(OutboundMessage.of("", rabbit.queue, ("m" + i).getBytes(StandardCharsets.UTF_8))
                    .withMessageId("outage-" + i));
        }
        try (OncePublisher publisher = OncePublisher.builder(rabbit.connect()).build()) {
            publisher.publishAll(messages);
        }
    }

    void awaitAllDoneAndQuiet(OnceConsumer consumer) {
        await().atMost(Duration.ofSeconds(60)).until(() -> variant.distinctEffects() == MESSAGES);
        await().atMost(Duration.ofSeconds(20)).until(() -> rabbit.allEmpty(FAST) && consumer.inFlight() == 0);
    }

    /** Restarts the store; then every message has had exactly one effect, and the consumer resumed. */
    private void restartStoreAndAwaitEveryMessageOnce(OnceConsumer consumer, RecordingListener listener)
            throws Exception {
        restartStore();
        awaitAllDoneAndQuiet(consumer);
        assertThat(variant.totalEffects()).isEqualTo(MESSAGES);
        assertThat(listener.resumes.get()).isPositive();
        assertThat(consumer.isPaused()).isFalse();
        assertThat(listener.count(ConsumerAction.DEAD_LETTERED)).isZero();
    }

    /** Counts what the consumer does and stops the store, on the consumer's thread, as it settles the nth processed. */
    private RecordingListener stoppingTheStoreAt(int nth, AtomicBoolean stopped) {
        AtomicInteger processed = new AtomicInteger();
        return new RecordingListener() {
            @Override
            public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
                super.onAction(delivery, key, action);
                if (action == ConsumerAction.PROCESSED && processed.incrementAndGet() == nth
                        && stopped.compareAndSet(false, true)) {
                    try {
                        stopStore();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        };
    }

    @Test
    void storeStoppedBetweenMessagesPausesAndResumesNothingLostNothingDoubled() throws Exception {
        AtomicBoolean stopped = new AtomicBoolean();
        // One channel, and the store dies right after an ack: no handler is between its claim and its record.
        RecordingListener listener = stoppingTheStoreAt(200, stopped);
        OnceConsumer consumer = start(1, listener);
        publish();

        await().atMost(Duration.ofSeconds(30)).until(() -> stopped.get() && consumer.isPaused());
        long effectsAtStop = variant.totalEffects();
        // The consumer keeps probing with back-off, and runs no handler without a claim.
        await().atMost(Duration.ofSeconds(20)).until(() -> listener.pauses.get() >= 3);
        assertThat(variant.totalEffects()).isEqualTo(effectsAtStop);
        assertThat(effectsAtStop).isBetween(200L, (long) MESSAGES - 1);
        assertThat(listener.count(ConsumerAction.REQUEUED)).isPositive();

        restartStoreAndAwaitEveryMessageOnce(consumer, listener);
    }

    @Test
    void consumerStartedWhileTheStoreIsDownStartsPausedAndProcessesEverythingOnceItAnswers() throws Exception {
        stopStore();
        RecordingListener listener = new RecordingListener();
        OnceConsumer consumer = start(1, listener);
        assertThat(consumer.state()).isEqualTo(OnceConsumer.State.PAUSED);
        publish();

        // It probes with back-off, and runs no handler without a claim.
        await().atMost(Duration.ofSeconds(20)).until(() -> listener.pauses.get() >= 3);
        assertThat(variant.totalEffects()).isZero();
        assertThat(listener.count(ConsumerAction.PROCESSED)).isZero();

        restartStoreAndAwaitEveryMessageOnce(consumer, listener);
    }

    @Test
    void storeStoppedAtAnArbitraryMomentLosesNothing() throws Exception {
        AtomicBoolean stopped = new AtomicBoolean();
        // Two channels: the store dies as one of them settles its 150th message, the other one wherever it is. (A
        // poll of the effects could come too late with a fast store: every message done before the store stops.)
        RecordingListener listener = stoppingTheStoreAt(150, stopped);
        OnceConsumer consumer = start(2, listener);
        publish();

        await().atMost(Duration.ofSeconds(30)).until(stopped::get);
        await().atMost(Duration.ofSeconds(20)).until(consumer::isPaused);
        await().atMost(Duration.ofSeconds(20)).until(() -> listener.pauses.get() >= 2);
        restartStore();

        awaitAllDoneAndQuiet(consumer);
        assertThat(variant.distinctEffects()).isEqualTo(MESSAGES);
        long repeated = variant.totalEffects() - MESSAGES;
        System.out.printf("%s: store cut at an arbitrary moment: %d repeated effect(s), %d allowed %s%n",
                getClass().getSimpleName(), repeated, repeatsAllowed(), allowanceSource());
        assertThat(repeated).isLessThanOrEqualTo(repeatsAllowed());
        assertThat(listener.count(ConsumerAction.DEAD_LETTERED)).isZero();
    }
}
