package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.ShutdownSignalException;

import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consuming channel across its incarnations: opens it, reopens it after a channel error, waits for the
 * client's automatic recovery after a connection loss, and consumes or cancels as the {@link PauseGate} says.
 * The client's dispatch thread only queues deliveries here, so a slow handler never blocks the connection.
 *
 * <p>Every delivery is stamped with the channel's generation. The generation changes whenever the channel shuts
 * down (the broker has then requeued everything unacked on it), so a delivery from an earlier generation is
 * never acked, nacked or moved: its tag would be stale.
 */
final class ChannelSession {
    private static final Logger log = LoggerFactory.getLogger(ChannelSession.class);
    private static final Duration RECOVERY_PATIENCE = Duration.ofSeconds(15);

    private final ConsumerSettings settings;
    private final String name;
    private final Clock clock;
    private final PauseGate gate;
    private final AtomicInteger inHand;
    private final BlockingQueue<Inbound> inbox = new LinkedBlockingQueue<>();
    private final AtomicLong generation = new AtomicLong();

    private volatile Channel channel;
    private volatile SessionConsumer consumer;
    private volatile boolean consuming;
    private volatile boolean needsReopen = true;
    private volatile boolean awaitingRecovery;
    private volatile Instant awaitingSince = Instant.MIN;
    private volatile boolean stopping;
    private Instant nextReopen = Instant.MIN;
    private Backoff reopenBackoff = Backoff.of(Duration.ofMillis(100), Duration.ofSeconds(5));

    /** @param inHand counts each delivery received here; whoever settles it counts it down */
    ChannelSession(ConsumerSettings settings, String name, PauseGate gate, AtomicInteger inHand) {
        this.settings = settings;
        this.name = name;
        this.clock = settings.config().clock();
        this.gate = gate;
        this.inHand = inHand;
    }

    Channel channel() {
        return channel;
    }

    boolean stopping() {
        return stopping;
    }

    void stop() {
        stopping = true;
    }

    /** Whether the delivery's tag still means something: it came on the current channel in this generation. */
    boolean live(Inbound in) {
        return in.generation() == generation.get() && in.channel() == channel;
    }

    /** The next delivery, waiting up to {@code millis}; null if none came. */
    Inbound poll(long millis) throws InterruptedException {
        return inbox.poll(millis, TimeUnit.MILLISECONDS);
    }

    /** {@code first} and the deliveries already queued behind it, {@code max} at the most, in delivery order. */
    List<Inbound> drain(Inbound first, int max) {
        List<Inbound> batch = new ArrayList<>(Math.min(max, inbox.size() + 1));
        batch.add(first);
        inbox.drainTo(batch, max - 1);
        return batch;
    }

    /** Whether no delivery is waiting to be taken. */
    boolean idle() {
        return inbox.isEmpty();
    }

    /** Takes a queued delivery without waiting, or null (at shutdown). */
    Inbound takeQueued() {
        return inbox.poll();
    }

    /** Reopens the channel when due, and consumes or cancels as the gate and {@link #stop()} want. */
    void maintain() {
        if (needsReopen) {
            Instant now = clock.instant();
            if (now.isBefore(nextReopen)) {
                return;
            }
            try {
                open();
                needsReopen = false;
                reopenBackoff = reopenBackoff.reset();
            } catch (IOException | RuntimeException e) {
                log.warn("Consumer {}: could not open a channel, retrying in {}: {}", name, reopenBackoff.current(),
                        e.toString());
                nextReopen = now.plus(reopenBackoff.current());
                reopenBackoff = reopenBackoff.doubled();
                return;
            }
        }
        Channel ch = channel;
        if (ch == null || !ch.isOpen()) {
            return;
        }
        if (awaitingRecovery) {
            // The client re-registers our consumer itself after a connection recovery; wait for it.
            if (clock.instant().isBefore(awaitingSince.plus(RECOVERY_PATIENCE))) {
                return;
            }
            awaitingRecovery = false;
        }
        boolean wanted = !stopping && gate.isOpen();
        try {
            if (wanted && !consuming) {
                ch.basicConsume(settings.queue(), false, consumer);
                consuming = true;
            } else if (!wanted && consuming) {
                cancel(ch);
            }
        } catch (IOException | RuntimeException e) {
            log.warn("Consumer {}: {} failed: {}", name, wanted ? "basic.consume" : "basic.cancel", e.toString());
        }
    }

    /**
     * Opens the channel and starts consuming on the caller's thread, so that start() reports what fails; a
     * consumer that starts paused consumes once its gate opens.
     */
    void openNow() throws IOException {
        open();
        needsReopen = false;
        if (!gate.isOpen()) {
            return;
        }
        try {
            channel.basicConsume(settings.queue(), false, consumer);
        } catch (IOException | RuntimeException e) {
            abortQuietly(channel);
            throw e;
        }
        consuming = true;
    }

    private void open() throws IOException {
        Channel old = channel;
        if (old != null) {
            // A channel closed by a channel error stays registered for automatic recovery, with our consumer;
            // aborting it unregisters both, so a later connection recovery cannot revive it as a zombie.
            abortQuietly(old);
        }
        Channel ch = settings.connection().createChannel();
        if (ch == null) {
            throw new IOException("the connection has no channel left");
        }
        try {
            ch.basicQos(settings.config().prefetch());
        } catch (IOException | RuntimeException e) {
            abortQuietly(ch);
            throw e;
        }
        generation.incrementAndGet();
        consuming = false;
        awaitingRecovery = false;
        consumer = new SessionConsumer(ch);
        channel = ch;
    }

    private void cancel(Channel ch) throws IOException {
        SessionConsumer c = consumer;
        consuming = false;
        if (c != null && c.tag != null) {
            ch.basicCancel(c.tag);
        }
    }

    /** Stops consuming if it still does (at shutdown); failures only logged. */
    void cancelQuietly() {
        Channel ch = channel;
        try {
            if (ch != null && ch.isOpen() && consuming) {
                cancel(ch);
            }
        } catch (IOException | RuntimeException e) {
            log.debug("Consumer {}: cancel on stop failed", name, e);
        }
    }

    /** Closes the channel: the broker requeues whatever is still unacked on it. */
    void closeQuietly() {
        Channel ch = channel;
        try {
            if (ch != null && ch.isOpen()) {
                ch.close();
            }
        } catch (IOException | TimeoutException | RuntimeException e) {
            log.debug("Consumer {}: channel close failed", name, e);
        }
    }

    /** Drops the channel without settling anything: the broker requeues what was in hand. */
    void abort() {
        Channel ch = channel;
        if (ch != null) {
            abortQuietly(ch);
        }
    }

    private void abortQuietly(Channel ch) {
        try {
            ch.abort();
        } catch (IOException | RuntimeException e) {
            log.debug("Consumer {}: abort of a channel failed", name, e);
        }
    }

    /** Receives deliveries for one channel incarnation and notices when it shuts down. */
    private final class SessionConsumer implements Consumer {
        private final Channel ch;
        volatile String tag;

        SessionConsumer(Channel ch) {
            this.ch = ch;
        }

        private boolean current() {
            return consumer == this;
        }

        @Override
        public void handleConsumeOk(String consumerTag) {
            tag = consumerTag;
            if (current()) {
                consuming = true;
                awaitingRecovery = false;
            }
        }

        @Override
        public void handleCancelOk(String consumerTag) {
        }

        @Override
        public void handleCancel(String consumerTag) {
            // The broker cancelled us (queue deleted, or a node went away); consume again after a pause.
            if (current()) {
                log.warn("Consumer {} was cancelled by the broker", name);
                consuming = false;
            }
        }

        @Override
        public void handleShutdownSignal(String consumerTag, ShutdownSignalException sig) {
            if (!current()) {
                return;
            }
            generation.incrementAndGet();
            boolean hadConsumer = consuming;
            consuming = false;
            if (stopping) {
                return;
            }
            if (sig.isHardError() && !sig.isInitiatedByApplication() && ch instanceof Recoverable) {
                // The consumer logs the loss once for all its channels, and the recovery.
                log.debug("Consumer {}: connection lost ({}); waiting for automatic recovery", name, sig.getMessage());
                awaitingSince = clock.instant();
                awaitingRecovery = hadConsumer;
            } else {
                log.info("Consumer {}: channel closed ({}); reopening", name, sig.getMessage());
                needsReopen = true;
            }
        }

        @Override
        public void handleRecoverOk(String consumerTag) {
        }

        @Override
        public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
                                   byte[] body) {
            inHand.incrementAndGet();
            inbox.add(new Inbound(new Delivery(envelope, properties, body), generation.get(), ch));
        }
    }
}
