package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Method;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownSignalException;

import io.github.once.rabbitmq.PublishException;
import io.github.once.rabbitmq.RejectedMessageException;

import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes on a channel of its own in confirm mode and hands back a future per message. Sequence numbers are
 * only meaningful within one incarnation of the channel: when it shuts down, every outstanding publish fails
 * (its fate is unknown) and the caller re-sends it by message ID; a channel closed by a channel error is
 * replaced on the next send. A definite no from the broker (a return, a nack, a missing exchange) fails the
 * future with a {@link RejectedMessageException}.
 */
public final class ConfirmedSender implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConfirmedSender.class);
    /** "NOT_FOUND - no exchange 'x' in vhost '/'": the channel error for a publish to a missing exchange. */
    private static final Pattern MISSING_EXCHANGE = Pattern.compile("no exchange '(.*)' in vhost");

    private final Connection connection;
    private final ReentrantLock lock = new ReentrantLock();
    private Incarnation current;
    private volatile boolean closed;

    public ConfirmedSender(Connection connection) {
        this.connection = Objects.requireNonNull(connection, "connection");
    }

    /** One publish awaiting its confirm. */
    public static final class Pending {
        public final String messageId;
        final String exchange;
        final String routingKey;
        public final CompletableFuture<Void> confirmed = new CompletableFuture<>();
        volatile RejectedMessageException returned;
        Incarnation incarnation;
        long seq;

        public Pending(String messageId, String exchange, String routingKey) {
            this.messageId = messageId;
            this.exchange = exchange;
            this.routingKey = routingKey;
        }

        /** Stops waiting for the confirm: the future fails with {@code why} unless it is complete already. */
        public void abandon(String why) {
            if (incarnation != null) {
                incarnation.bySeq.remove(seq, this);
            }
            confirmed.completeExceptionally(new PublishException(messageId, why));
        }
    }

    /** Sends one message; the future completes when the broker confirms it, or fails with a PublishException. */
    public Pending send(String exchange, String routingKey, boolean mandatory, AMQP.BasicProperties props, byte[] body) {
        Pending pending = new Pending(props.getMessageId(), exchange, routingKey);
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("sender is closed");
            }
            Incarnation inc = incarnation();
            NavigableMap<Long, Pending> map = inc.bySeq;
            pending.incarnation = inc;
            pending.seq = inc.channel.getNextPublishSeqNo();
            map.put(pending.seq, pending);
            inc.channel.basicPublish(exchange, routingKey, mandatory, props, body);
            if (inc.bySeq != map) {
                // The channel shut down around this publish: its confirm can never arrive.
                map.remove(pending.seq);
                pending.confirmed.completeExceptionally(new PublishException(pending.messageId,
                        "channel closed while publishing; the message may or may not have arrived"));
            }
        } catch (IOException | RuntimeException e) {
            if (pending.incarnation != null) {
                pending.incarnation.bySeq.remove(pending.seq, pending);
            }
            pending.confirmed.completeExceptionally(new PublishException(pending.messageId,
                    "could not publish to exchange '" + exchange + "' with routing key '" + routingKey + "': " + e, e));
        } finally {
            lock.unlock();
        }
        return pending;
    }

    /** Forgets a publish whose confirm the caller stopped waiting for. */
    public void abandon(Pending pending) {
        pending.abandon("confirm timed out");
    }

    /** Message IDs sent and not yet confirmed. */
    public Set<String> outstanding() {
        Set<String> ids = new HashSet<>();
        lock.lock();
        try {
            if (current != null) {
                for (Pending p : current.bySeq.values()) {
                    if (p.messageId != null) {
                        ids.add(p.messageId);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        return ids;
    }

    private Incarnation incarnation() throws IOException {
        if (current != null && current.channel.isOpen()) {
            return current;
        }
        if (!connection.isOpen()) {
            throw new IOException("connection is down (recovering or closed)");
        }
        if (current != null) {
            // Closed by a channel error: it will not come back, open another one.
            current.failAll("channel closed");
            abortQuietly(current.channel);
        }
        Channel channel = connection.createChannel();
        if (channel == null) {
            throw new IOException("no channel available on the connection");
        }
        channel.confirmSelect();
        current = new Incarnation(channel);
        return current;
    }

    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            if (current != null) {
                current.failAll("sender closed");
                try {
                    if (current.channel.isOpen()) {
                        current.channel.close();
                    }
                } catch (IOException | TimeoutException | RuntimeException e) {
                    log.debug("Closing the publishing channel failed", e);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The exchange a channel error names as missing, or null for any other shutdown. */
    static String missingExchange(ShutdownSignalException cause) {
        if (cause.isHardError()) {
            return null;
        }
        Method reason = cause.getReason();
        if (reason instanceof AMQP.Channel.Close close && close.getReplyCode() == AMQP.NOT_FOUND) {
            Matcher m = MISSING_EXCHANGE.matcher(close.getReplyText());
            return m.find() ? m.group(1) : null;
        }
        return null;
    }

    private static void abortQuietly(Channel channel) {
        try {
            channel.abort();
        } catch (IOException | RuntimeException e) {
            log.debug("Aborting a dead channel failed", e);
        }
    }

    /** One channel and the publishes sent on it since it last (re)opened. */
    static final class Incarnation implements ConfirmListener, ReturnListener {
        final Channel channel;
        volatile ConcurrentSkipListMap<Long, Pending> bySeq = new ConcurrentSkipListMap<>();

        Incarnation(Channel channel) {
            this.channel = channel;
            channel.addConfirmListener(this);
            channel.addReturnListener(this);
            channel.addShutdownListener(this::shutdown);
        }

        private void shutdown(ShutdownSignalException cause) {
            String missing = missingExchange(cause);
            if (missing != null) {
                for (Pending p : bySeq.values()) {
                    if (missing.equals(p.exchange)) {
                        bySeq.remove(p.seq, p);
                        p.confirmed.completeExceptionally(new RejectedMessageException(p.messageId, p.exchange,
                                p.routingKey, "exchange '" + missing + "' does not exist"));
                    }
                }
            }
            failAll("channel shut down: " + cause.getMessage());
        }

        void failAll(String why) {
            ConcurrentSkipListMap<Long, Pending> old = bySeq;
            bySeq = new ConcurrentSkipListMap<>();
            for (Pending p : old.values()) {
                p.confirmed.completeExceptionally(new PublishException(p.messageId,
                        why + "; the message may or may not have arrived"));
            }
        }

        @Override
        public void handleAck(long deliveryTag, boolean multiple) {
            settle(deliveryTag, multiple, true);
        }

        @Override
        public void handleNack(long deliveryTag, boolean multiple) {
            settle(deliveryTag, multiple, false);
        }

        private void settle(long seq, boolean multiple, boolean ack) {
            ConcurrentSkipListMap<Long, Pending> map = bySeq;
            Map<Long, Pending> done = multiple ? map.headMap(seq, true) : singleton(map, seq);
            for (Map.Entry<Long, Pending> e : Set.copyOf(done.entrySet())) {
                Pending p = e.getValue();
                map.remove(e.getKey(), p);
                if (!ack) {
                    p.confirmed.completeExceptionally(new RejectedMessageException(p.messageId, p.exchange, p.routingKey,
                            "nacked by the broker"));
                } else if (p.returned != null) {
                    p.confirmed.completeExceptionally(p.returned);
                } else {
                    p.confirmed.complete(null);
                }
            }
        }

        private static Map<Long, Pending> singleton(ConcurrentSkipListMap<Long, Pending> map, long seq) {
            Pending p = map.get(seq);
            return p == null ? Map.of() : Map.of(seq, p);
        }

        @Override
        public void handleReturn(int replyCode, String replyText, String exchange, String routingKey,
                                 AMQP.BasicProperties properties, byte[] body) {
            // A return carries no sequence number; it precedes the ack of its publish, so mark the oldest
            // unconfirmed publish with the same address and ID.
            String id = properties.getMessageId();
            for (Pending p : bySeq.values()) {
                if (p.returned == null && Objects.equals(p.messageId, id) && p.exchange.equals(exchange)
                        && p.routingKey.equals(routingKey)) {
                    p.returned = new RejectedMessageException(id, exchange, routingKey,
                            "returned as unroutable: " + replyCode + " " + replyText);
                    return;
                }
            }
        }
    }
}
