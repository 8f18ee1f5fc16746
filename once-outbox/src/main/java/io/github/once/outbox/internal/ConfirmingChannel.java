package io.github.once.outbox.internal;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Method;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownSignalException;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes rows on one channel in confirm mode, mandatory, and answers each with a {@link PublishOutcome}. Used
 * by one relay thread at a time; the broker's callbacks arrive on the client's I/O thread and only complete futures.
 * Sequence numbers are meaningful only within one send: a channel that shuts down fails every publish in flight as
 * unknown, and the relay re-sends those rows later under the same message IDs.
 */
public final class ConfirmingChannel implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConfirmingChannel.class);
    /** "NOT_FOUND - no exchange 'x' in vhost '/'": the channel error for a publish to a missing exchange. */
    private static final Pattern MISSING_EXCHANGE = Pattern.compile("no exchange '(.*)' in vhost");

    private final Connection connection;
    private Channel channel;
    private volatile ConcurrentSkipListMap<Long, Pending> inFlight = new ConcurrentSkipListMap<>();

    public ConfirmingChannel(Connection connection) {
        this.connection = Objects.requireNonNull(connection, "connection");
    }

    private static final class Pending {
        final ClaimedRow row;
        final CompletableFuture<PublishOutcome> outcome = new CompletableFuture<>();
        volatile String returned;

        Pending(ClaimedRow row) {
            this.row = row;
        }
    }

    /** Sends every row, then waits up to {@code timeout} in all for their confirms. */
    public List<PublishOutcome> publish(List<ClaimedRow> rows, Duration timeout) {
        List<Pending> sent = new ArrayList<>(rows.size());
        Channel ch = null;
        String failure = null;
        try {
            ch = channel();
        } catch (IOException | RuntimeException e) {
            failure = "no channel: " + e.getMessage();
        }
        ConcurrentSkipListMap<Long, Pending> map = inFlight;
        for (ClaimedRow row : rows) {
            Pending p = new Pending(row);
            sent.add(p);
            if (failure != null) {
                p.outcome.complete(new PublishOutcome.Unknown(failure));
                continue;
            }
            try {
                map.put(ch.getNextPublishSeqNo(), p);
                ch.basicPublish(row.exchange(), row.routingKey(), true, row.properties(), row.body());
            } catch (IOException | AlreadyClosedException e) {
                failure = "publish failed: " + e.getMessage();
                p.outcome.complete(new PublishOutcome.Unknown(failure));
            }
        }
        if (map != inFlight) {
            // The channel shut down while these were sent: those put after its listener ran would wait in vain.
            map.values().forEach(p -> p.outcome.complete(new PublishOutcome.Unknown("channel shut down")));
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        List<PublishOutcome> outcomes = new ArrayList<>(sent.size());
        for (Pending p : sent) {
            outcomes.add(await(p, deadline));
        }
        map.clear();
        return outcomes;
    }

    private static PublishOutcome await(Pending p, long deadline) {
        try {
            return p.outcome.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            return new PublishOutcome.Unknown("no confirm in time");
        } catch (ExecutionException e) {
            return new PublishOutcome.Unknown("publish failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new PublishOutcome.Unknown("interrupted while waiting for a confirm");
        }
    }

    /** Whether the connection is open: no point claiming rows while it recovers. */
    public boolean brokerReachable() {
        return connection.isOpen();
    }

    private Channel channel() throws IOException {
        if (channel != null && channel.isOpen()) {
            return channel;
        }
        if (!connection.isOpen()) {
            throw new IOException("connection is down (recovering or closed)");
        }
        if (channel != null) {
            // Closed by a channel error (a missing exchange, say): it will not recover, open another one.
            abortQuietly(channel);
        }
        Channel ch = connection.createChannel();
        if (ch == null) {
            throw new IOException("no channel available on the connection");
        }
        ch.confirmSelect();
        Callbacks callbacks = new Callbacks();
        ch.addConfirmListener(callbacks);
        ch.addReturnListener(callbacks);
        ch.addShutdownListener(callbacks::shutdown);
        channel = ch;
        return ch;
    }

    private final class Callbacks implements ConfirmListener, ReturnListener {

        @Override
        public void handleAck(long seq, boolean multiple) {
            settle(seq, multiple, true);
        }

        @Override
        public void handleNack(long seq, boolean multiple) {
            settle(seq, multiple, false);
        }

        private void settle(long seq, boolean multiple, boolean ack) {
            ConcurrentSkipListMap<Long, Pending> map = inFlight;
            Map<Long, Pending> done = multiple ? map.headMap(seq, true) : single(map, seq);
            for (Map.Entry<Long, Pending> e : List.copyOf(done.entrySet())) {
                Pending p = e.getValue();
                map.remove(e.getKey(), p);
                if (!ack) {
                    p.outcome.complete(new PublishOutcome.Rejected("refused by the broker (nack)"));
                } else if (p.returned != null) {
                    p.outcome.complete(new PublishOutcome.Rejected(p.returned));
                } else {
                    p.outcome.complete(new PublishOutcome.Confirmed());
                }
            }
        }

        private Map<Long, Pending> single(ConcurrentSkipListMap<Long, Pending> map, long seq) {
            Pending p = map.get(seq);
            return p == null ? Map.of() : Map.of(seq, p);
        }

        @Override
        public void handleReturn(int replyCode, String replyText, String exchange, String routingKey,
                                 AMQP.BasicProperties properties, byte[] body) {
            // A return carries no sequence number but comes before its publish's ack: mark the oldest unsettled
            // publish with the same message ID and address.
            String id = properties.getMessageId();
            for (Pending p : inFlight.values()) {
                if (p.returned == null && Objects.equals(p.row.messageId(), id) && p.row.exchange().equals(exchange)
                        && p.row.routingKey().equals(routingKey)) {
                    p.returned = "returned as unroutable: " + replyCode + " " + replyText;
                    return;
                }
            }
        }

        void shutdown(ShutdownSignalException cause) {
            ConcurrentSkipListMap<Long, Pending> old = inFlight;
            inFlight = new ConcurrentSkipListMap<>();
            String missing = missingExchange(cause);
            for (Pending p : old.values()) {
                if (missing != null && missing.equals(p.row.exchange())) {
                    p.outcome.complete(new PublishOutcome.Rejected("exchange '" + missing + "' does not exist"));
                } else {
                    p.outcome.complete(new PublishOutcome.Unknown("channel shut down: " + cause.getMessage()));
                }
            }
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

    private static void abortQuietly(Channel ch) {
        try {
            ch.abort();
        } catch (IOException | RuntimeException e) {
            log.debug("Aborting a closed publishing channel failed", e);
        }
    }

    /** Closes the channel; the connection is the caller's. */
    @Override
    public void close() {
        if (channel != null && channel.isOpen()) {
            try {
                channel.close();
            } catch (IOException | TimeoutException | RuntimeException e) {
                log.debug("Closing the outbox publishing channel failed", e);
            }
        }
    }
}
