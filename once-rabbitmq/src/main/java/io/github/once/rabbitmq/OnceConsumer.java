package io.github.once.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotentExecutor;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RabbitMQ consumer that gives its handler exactly-once effects on top of at-least-once delivery.
 *
 * <p>Each delivery's key (by default its {@code message_id}) is claimed through an {@link IdempotentExecutor}
 * before the handler runs, and the delivery is acked only after the completion is recorded, or after a copy was
 * moved elsewhere with a publisher confirm:
 * <ul>
 *   <li>processed or duplicate: ack (a duplicate request gets its stored reply again);</li>
 *   <li>busy elsewhere, or the claim lost to another owner: a delayed retry that does not count as an attempt;</li>
 *   <li>handler failure: a delayed retry with back-off, then the dead-letter queue with the cause in headers;</li>
 *   <li>no key, or the key reused with another payload: the dead-letter queue with the reason.</li>
 * </ul>
 * When the store cannot be reached the consumer gives back what it holds, stops consuming, and probes again
 * with back-off; it never runs a handler without a claim and never acks an unprocessed message.
 *
 * <pre>{@code
 * OnceConsumer consumer = OnceConsumer.builder(connection, "orders", once)
 *         .handler((delivery, ctx) -> shipOrder(delivery.getBody()))
 *         .build();
 * consumer.start();
 * }</pre>
 */
public final class OnceConsumer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OnceConsumer.class);

    private final ConsumerSettings settings;
    private final PauseGate gate;
    private final List<ConsumerWorker> workers = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final ListenerCalls listener;
    private boolean started;
    private boolean closed;
    private Channel topologyChannel;

    private OnceConsumer(ConsumerSettings settings, ConsumerListener listener) {
        this.settings = settings;
        this.listener = new ListenerCalls(listener);
        this.gate = new PauseGate(settings.storeBackoff(), settings.maxStoreBackoff(), this.listener);
    }

    /**
     * @param connection a connection the caller owns (automatic recovery, the client's default, is recommended)
     * @param queue      the work queue
     * @param executor   claims and records the work: {@code Idempotency} with any store, or a transactional one
     */
    public static Builder builder(Connection connection, String queue, IdempotentExecutor executor) {
        return new Builder(connection, queue, executor);
    }

    /** Declares the configured topology and starts consuming on every channel. */
    public synchronized OnceConsumer start() throws IOException {
        if (started) {
            throw new IllegalStateException("consumer on '" + settings.queue() + "' was already started");
        }
        started = true;
        if (settings.topology().declaresAnything()) {
            // Kept open while consuming: automatic recovery re-declares recorded queues on the channel that
            // declared them, so a durable queue deleted during an outage comes back.
            topologyChannel = settings.connection().createChannel();
            try {
                settings.topology().declare(topologyChannel, settings.queue(), settings.retry());
            } catch (IOException | RuntimeException e) {
                closeQuietly(topologyChannel);
                throw e;
            }
        }
        for (int i = 0; i < settings.channels(); i++) {
            ConsumerWorker worker = new ConsumerWorker(settings, i, gate, listener);
            try {
                worker.openNow();
            } catch (IOException | RuntimeException e) {
                close(); // the channels already started stop again
                throw e;
            }
            Thread thread = new Thread(worker, "once-consumer-" + settings.queue() + "-" + i);
            thread.setDaemon(true);
            workers.add(worker);
            threads.add(thread);
            thread.start();
        }
        return this;
    }

    public String queue() {
        return settings.queue();
    }

    /** Whether consumption is paused because the store (or the broker, for moves) was unreachable. */
    public boolean isPaused() {
        return gate.isPaused();
    }

    /** Deliveries received and not yet acked, moved or given back. */
    public int inFlight() {
        int n = 0;
        for (ConsumerWorker w : workers) {
            n += w.inHand();
        }
        return n;
    }

    List<ConsumerWorker> workers() {
        return workers;
    }

    /** Stops taking deliveries, lets work in hand finish within the shutdown timeout, acks it, closes channels. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        workers.forEach(ConsumerWorker::stop);
        long deadline = System.nanoTime() + settings.shutdownTimeout().toNanos();
        for (int i = 0; i < threads.size(); i++) {
            Thread t = threads.get(i);
            try {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                log.warn("Consumer {}: work still running after {}; closing its channel, the broker requeues it",
                        settings.queue(), settings.shutdownTimeout());
                workers.get(i).abort();
                t.interrupt();
            }
        }
        if (topologyChannel != null) {
            closeQuietly(topologyChannel);
        }
    }

    private static void closeQuietly(Channel channel) {
        try {
            if (channel.isOpen()) {
                channel.close();
            }
        } catch (IOException | java.util.concurrent.TimeoutException | RuntimeException e) {
            log.debug("Closing the topology channel failed", e);
        }
    }

    public static final class Builder {
        private final Connection connection;
        private final String queue;
        private final IdempotentExecutor executor;
        private RequestHandler handler;
        private Function<Delivery, String> namespace;
        private String fixedNamespace;
        private KeyExtractor keys = KeyExtractor.messageId();
        private int prefetch = 50;
        private int channels = 1;
        private boolean batchClaims;
        private int maxBatch = 0;
        private RetryPolicy retry = RetryPolicy.defaults();
        private Topology topology = Topology.retryQueuesOnly(QueueType.CLASSIC);
        private Duration moveTimeout = Duration.ofSeconds(5);
        private Duration shutdownTimeout = Duration.ofSeconds(30);
        private Duration storeBackoff = Duration.ofMillis(200);
        private Duration maxStoreBackoff = Duration.ofSeconds(10);
        private int maxErrorLength = 1000;
        private ConsumerListener listener = ConsumerListener.NONE;

        private Builder(Connection connection, String queue, IdempotentExecutor executor) {
            this.connection = Objects.requireNonNull(connection, "connection");
            this.executor = Objects.requireNonNull(executor, "executor");
            if (queue == null || queue.isBlank() || queue.length() > 200) {
                throw new IllegalArgumentException("queue must be 1 to 200 characters, but was '" + queue + "'");
            }
            this.queue = queue;
        }

        /** The work, for messages that need no reply. */
        public Builder handler(MessageHandler handler) {
            Objects.requireNonNull(handler, "handler");
            this.handler = (delivery, ctx) -> {
                handler.handle(delivery, ctx);
                return null;
            };
            return this;
        }

        /** The work, for requests: the returned bytes are recorded and sent to {@code reply_to}. */
        public Builder requestHandler(RequestHandler handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /** The key namespace for every message of this consumer. Default: the queue name. */
        public Builder namespace(String namespace) {
            IdempotencyKey.of(Objects.requireNonNull(namespace, "namespace"), "check"); // validates the namespace
            this.fixedNamespace = namespace;
            this.namespace = null;
            return this;
        }

        /** The key namespace per message, for example by its {@code type} property. */
        public Builder namespace(Function<Delivery, String> namespace) {
            this.namespace = Objects.requireNonNull(namespace, "namespace");
            this.fixedNamespace = null;
            return this;
        }

        /** Where the idempotency id comes from. Default: the {@code message_id} property. */
        public Builder keyExtractor(KeyExtractor keys) {
            this.keys = Objects.requireNonNull(keys, "keyExtractor");
            return this;
        }

        /** Unacked deliveries per channel ({@code basic.qos}). Default 50. */
        public Builder prefetch(int prefetch) {
            if (prefetch < 1 || prefetch > 65535) {
                throw new IllegalArgumentException("prefetch must be 1 to 65535, but was " + prefetch);
            }
            this.prefetch = prefetch;
            return this;
        }

        /** Channels consuming in parallel, each with its own thread. Default 1. */
        public Builder channels(int channels) {
            if (channels < 1 || channels > 256) {
                throw new IllegalArgumentException("channels must be 1 to 256, but was " + channels);
            }
            this.channels = channels;
            return this;
        }

        /**
         * Claim the deliveries in hand with one store call ({@code executeAll}) instead of one per message.
         * Later claims of a batch wait for the handlers before them, so keep batches well inside the lease.
         */
        public Builder batchClaims(boolean batchClaims) {
            this.batchClaims = batchClaims;
            return this;
        }

        /** Most deliveries taken together. Default: the prefetch, at most 100. */
        public Builder maxBatch(int maxBatch) {
            if (maxBatch < 1) {
                throw new IllegalArgumentException("maxBatch must be at least 1, but was " + maxBatch);
            }
            this.maxBatch = maxBatch;
            return this;
        }

        public Builder retry(RetryPolicy retry) {
            this.retry = Objects.requireNonNull(retry, "retry");
            return this;
        }

        /** What to declare at start. Default: the delay queues and the dead-letter queue, classic. */
        public Builder topology(Topology topology) {
            this.topology = Objects.requireNonNull(topology, "topology");
            return this;
        }

        /** How long to wait for the confirm of a moved copy before giving the original back. Default 5 s. */
        public Builder moveTimeout(Duration moveTimeout) {
            this.moveTimeout = Durations.requirePositive(moveTimeout, "moveTimeout");
            return this;
        }

        /** How long {@link OnceConsumer#close()} lets work in hand finish. Default 30 s. */
        public Builder shutdownTimeout(Duration shutdownTimeout) {
            this.shutdownTimeout = Durations.requirePositive(shutdownTimeout, "shutdownTimeout");
            return this;
        }

        /** The first pause when the store is unreachable, and the longest (doubling in between). */
        public Builder storeBackoff(Duration initial, Duration max) {
            Durations.requirePositive(initial, "storeBackoff initial");
            Durations.requirePositive(max, "storeBackoff max");
            if (max.compareTo(initial) < 0) {
                throw new IllegalArgumentException("storeBackoff max must not be below initial, but was " + max
                        + " < " + initial);
            }
            this.storeBackoff = initial;
            this.maxStoreBackoff = max;
            return this;
        }

        /** Longest {@code x-once-error} header, in characters. Default 1000. */
        public Builder maxErrorLength(int maxErrorLength) {
            if (maxErrorLength < 16) {
                throw new IllegalArgumentException("maxErrorLength must be at least 16, but was " + maxErrorLength);
            }
            this.maxErrorLength = maxErrorLength;
            return this;
        }

        public Builder listener(ConsumerListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        public OnceConsumer build() {
            if (handler == null) {
                throw new IllegalArgumentException("handler must be set (handler(...) or requestHandler(...))");
            }
            Function<Delivery, String> ns = namespace;
            if (ns == null) {
                String fixed = fixedNamespace != null ? fixedNamespace : queue;
                try {
                    IdempotencyKey.of(fixed, "check");
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("namespace defaults to the queue name '" + queue
                            + "', which is not a valid namespace; set namespace(...)", e);
                }
                ns = d -> fixed;
            }
            int batch = maxBatch > 0 ? Math.min(maxBatch, prefetch) : Math.min(prefetch, 100);
            ConsumerSettings settings = new ConsumerSettings(connection, queue, executor, handler, ns, keys, prefetch,
                    channels, batchClaims, batch, retry, topology, moveTimeout, shutdownTimeout, storeBackoff,
                    maxStoreBackoff, maxErrorLength);
            return new OnceConsumer(settings, listener);
        }
    }
}
