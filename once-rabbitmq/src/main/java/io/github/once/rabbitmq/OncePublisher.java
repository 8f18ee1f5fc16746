package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Connection;

import io.github.once.rabbitmq.internal.ConfirmedSender;
import io.github.once.rabbitmq.internal.Durations;
import io.github.once.rabbitmq.internal.PublishTraces;
import io.micrometer.observation.ObservationRegistry;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Publishes messages that a consumer can recognise when they arrive twice: every message gets a stable
 * {@code message_id} (a time-ordered UUID, or the business key the caller sets), is persistent (unless the caller
 * chose otherwise) and mandatory, and is confirmed by the broker. When a confirm is late or lost with the
 * connection, the message is sent again with the <em>same</em> ID, so a producer's re-send becomes a harmless
 * duplicate; a definite refusal (a return, a nack) is reported, not re-sent. An {@link OutboundMessage} has its
 * ID from its creation, so publishing the same object twice is one message too.
 *
 * <pre>{@code
 * try (OncePublisher publisher = OncePublisher.builder(connection).build()) {
 *     String id = publisher.publish("", "orders", body);
 * }
 * }</pre>
 *
 * Thread-safe. Publishes are tracked by message ID; sequence numbers, which restart when a channel recovers,
 * are only used within one channel incarnation.
 */
public final class OncePublisher implements AutoCloseable {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int WINDOW = 1000;

    private final ConfirmedSender sender;
    private final Duration confirmTimeout;
    private final int maxAttempts;
    private final Duration retryBackoff;
    private final boolean mandatory;
    private final Supplier<String> messageIds;
    /** Null without observations: then no Micrometer class is loaded. */
    private final ObservationRegistry observations;

    private OncePublisher(Builder b) {
        this.sender = new ConfirmedSender(b.connection);
        this.confirmTimeout = b.confirmTimeout;
        this.maxAttempts = b.maxAttempts;
        this.retryBackoff = b.retryBackoff;
        this.mandatory = b.mandatory;
        this.messageIds = b.messageIds;
        this.observations = b.observations;
    }

    public static Builder builder(Connection connection) {
        return new Builder(connection);
    }

    /** A new time-ordered UUID (version 7): sorts by creation time, random below the millisecond. */
    public static String newMessageId() {
        long millis = System.currentTimeMillis();
        long msb = (millis << 16) | 0x7000L | (RANDOM.nextInt() & 0x0FFFL);
        long lsb = (RANDOM.nextLong() & 0x3FFFFFFFFFFFFFFFL) | 0x8000000000000000L;
        return new UUID(msb, lsb).toString();
    }

    /**
     * Publishes {@code body} as a new message, with an ID from {@link Builder#messageIds}, and returns that ID
     * once the broker confirmed it.
     */
    public String publish(String exchange, String routingKey, byte[] body) {
        return publish(new OutboundMessage(exchange, routingKey,
                new AMQP.BasicProperties.Builder().messageId(messageIds.get()).build(), body));
    }

    /**
     * Publishes one message and waits for its confirm, re-sending with the same ID when its fate is unknown (no
     * confirm in time, a lost connection).
     *
     * @return the message ID
     * @throws RejectedMessageException when the broker refused it: returned as unroutable, nacked, or its exchange
     *                                  does not exist (not re-sent)
     * @throws PublishException         when no try was confirmed; the broker may still have a copy
     */
    public String publish(OutboundMessage message) {
        return publishAll(List.of(message)).get(0);
    }

    /**
     * Publishes several messages with confirms in flight together, then re-sends the unconfirmed ones by ID.
     *
     * @return the message IDs, in order
     * @throws RejectedMessageException when the broker refused one (the others were still published)
     * @throws PublishException         when some were not confirmed after every try
     */
    public List<String> publishAll(List<OutboundMessage> messages) {
        List<OutboundMessage> remaining = stampAll(messages);
        List<String> ids = remaining.stream().map(OutboundMessage::messageId).toList();
        RejectedMessageException rejected = null;
        PublishException last = null;
        for (int attempt = 1; attempt <= maxAttempts && !remaining.isEmpty(); attempt++) {
            if (attempt > 1) {
                pause(retryBackoff.multipliedBy(1L << Math.min(attempt - 2, 10)));
            }
            List<Optional<PublishException>> results = send(remaining);
            List<OutboundMessage> retry = new ArrayList<>();
            for (int i = 0; i < results.size(); i++) {
                PublishException failure = results.get(i).orElse(null);
                if (failure instanceof RejectedMessageException r) {
                    rejected = rejected == null ? r : rejected;
                } else if (failure != null) {
                    last = failure;
                    retry.add(remaining.get(i));
                }
            }
            remaining = retry;
        }
        if (!remaining.isEmpty()) {
            PublishException e = new PublishException(remaining.get(0).messageId(),
                    remaining.size() + " message(s) not confirmed after " + maxAttempts
                            + " tries; re-send them with the same IDs: " + idsOf(remaining, 10) + " (last: "
                            + last.getMessage() + ")", last);
            if (rejected != null) {
                e.addSuppressed(rejected);
            }
            throw e;
        }
        if (rejected != null) {
            throw rejected;
        }
        return ids;
    }

    /**
     * Sends each message once, with confirms in flight together, and tells what became of each, in order: empty
     * when confirmed, a {@link RejectedMessageException} when the broker refused it, another
     * {@link PublishException} when its fate is unknown. Nothing is re-sent: for callers that keep their own
     * retry state, such as an outbox relay.
     */
    public List<Optional<PublishException>> tryPublishAll(List<OutboundMessage> messages) {
        return send(stampAll(messages));
    }

    /** IDs of messages sent and not yet confirmed (on the current channel). */
    public Set<String> outstanding() {
        return sender.outstanding();
    }

    /** One try of each message, in windows; each window waits for its confirms up to the confirm timeout. */
    private List<Optional<PublishException>> send(List<OutboundMessage> messages) {
        List<Optional<PublishException>> results = new ArrayList<>(messages.size());
        for (int from = 0; from < messages.size(); from += WINDOW) {
            List<OutboundMessage> window = messages.subList(from, Math.min(messages.size(), from + WINDOW));
            List<ConfirmedSender.Pending> pending = new ArrayList<>(window.size());
            for (OutboundMessage m : window) {
                pending.add(sender.send(m.exchange(), m.routingKey(), mandatory, m.properties(), m.body()));
            }
            long deadline = System.nanoTime() + confirmTimeout.toNanos();
            for (ConfirmedSender.Pending p : pending) {
                results.add(Optional.ofNullable(await(p, deadline)));
            }
        }
        return results;
    }

    private PublishException await(ConfirmedSender.Pending pending, long deadline) {
        try {
            pending.confirmed.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return null;
        } catch (TimeoutException e) {
            sender.abandon(pending);
            return new PublishException(pending.messageId, "no confirm within " + confirmTimeout, e);
        } catch (ExecutionException e) {
            return e.getCause() instanceof PublishException p ? p
                    : new PublishException(pending.messageId, "publish failed: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            // Its fate stays unknown; the flag stays set, so a caller that retries stops at its next pause.
            Thread.currentThread().interrupt();
            sender.abandon(pending);
            return new PublishException(pending.messageId, "interrupted while waiting for a confirm", e);
        }
    }

    private List<OutboundMessage> stampAll(List<OutboundMessage> messages) {
        List<OutboundMessage> stamped = new ArrayList<>(messages.size());
        for (OutboundMessage m : messages) {
            stamped.add(observations == null ? stamp(m) : PublishTraces.traced(observations, stamp(m)));
        }
        return stamped;
    }

    /** Persistent unless the caller chose otherwise, and timestamped: every try then sends the same properties. */
    private static OutboundMessage stamp(OutboundMessage m) {
        AMQP.BasicProperties p = m.properties();
        if (p.getDeliveryMode() != null && p.getTimestamp() != null) {
            return m;
        }
        AMQP.BasicProperties stamped = p.builder()
                .deliveryMode(p.getDeliveryMode() == null ? 2 : p.getDeliveryMode())
                .timestamp(p.getTimestamp() == null ? new Date() : p.getTimestamp())
                .build();
        return m.withProperties(stamped);
    }

    private static String idsOf(List<OutboundMessage> messages, int max) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < Math.min(max, messages.size()); i++) {
            ids.add(messages.get(i).properties().getMessageId());
        }
        return ids + (messages.size() > max ? " ..." : "");
    }

    private static void pause(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException(null, "interrupted while backing off", e);
        }
    }

    /** Closes the publishing channel; the connection is the caller's. */
    @Override
    public void close() {
        sender.close();
    }

    /** Builds {@link OncePublisher}; every setting has a default unless its factory takes it. */
    public static final class Builder {
        private final Connection connection;
        private Duration confirmTimeout = Duration.ofSeconds(5);
        private int maxAttempts = 5;
        private Duration retryBackoff = Duration.ofMillis(500);
        private boolean mandatory = true;
        private Supplier<String> messageIds = OncePublisher::newMessageId;
        private ObservationRegistry observations;

        private Builder(Connection connection) {
            this.connection = Objects.requireNonNull(connection, "connection");
        }

        /** How long to wait for a confirm before re-sending. Default 5 s. */
        public Builder confirmTimeout(Duration confirmTimeout) {
            this.confirmTimeout = Durations.requirePositive(confirmTimeout, "confirmTimeout");
            return this;
        }

        /**
         * Tries per message, the first included. Default 5: with the default back-off the tries span about 7.5 s,
         * longer than the client's default 5 s between connection recovery attempts.
         */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1, but was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** Pause before the second try, doubled for each later one. Default 500 ms. */
        public Builder retryBackoff(Duration retryBackoff) {
            this.retryBackoff = Durations.requirePositive(retryBackoff, "retryBackoff");
            return this;
        }

        /** Whether unroutable messages are returned and reported. Default true. */
        public Builder mandatory(boolean mandatory) {
            this.mandatory = mandatory;
            return this;
        }

        /**
         * Where the IDs of messages published with {@link OncePublisher#publish(String, String, byte[])} come
         * from. Default {@link OncePublisher#newMessageId()}. An {@link OutboundMessage} has its ID from its
         * creation.
         */
        public Builder messageIds(Supplier<String> messageIds) {
            this.messageIds = Objects.requireNonNull(messageIds, "messageIds");
            return this;
        }

        /**
         * Puts the trace context of the observation open on the publishing thread into each message's headers,
         * through a {@code once.publish} observation ({@code io.github.once.OnceObservation}), so that the consumer
         * continues the trace. A message published with no observation open keeps its headers as they are (an
         * outbox row's stored context, say). Without it (the default) no observation is made.
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observations = Objects.requireNonNull(registry, "registry");
            return this;
        }

        public OncePublisher build() {
            return new OncePublisher(this);
        }
    }
}
