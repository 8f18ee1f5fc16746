package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.PossibleAuthenticationFailureException;
import com.rabbitmq.client.ShutdownSignalException;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.OnceException;
import io.github.once.StoreUnavailableException;
import io.github.once.rabbitmq.internal.ConnectionWatch;
import io.github.once.rabbitmq.internal.ConsumerSettings;
import io.github.once.rabbitmq.internal.ConsumerWorker;
import io.github.once.rabbitmq.internal.ListenerCalls;
import io.github.once.rabbitmq.internal.PauseGate;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import javax.net.ssl.SSLException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A RabbitMQ consumer that gives its handler exactly-once effects on top of at-least-once delivery.
 *
 * <p>Each delivery's key (by default its {@code message_id}) is claimed through an {@link Idempotency}
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
 * <p>{@link #start()} first checks what would otherwise fail on the first delivery: the connection is open, the
 * store is set up ({@code IdempotencyStore.verify()}: the JDBC table, Redis scripts), and the work queue exists.
 * A store that cannot be reached yet is not an error: the consumer starts paused, as in an outage, and resumes
 * when the store answers.
 * What it does is logged through a {@link ProcessingLog} (logger {@value ProcessingLog#LOGGER}).
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
    private final ConnectionWatch watch;
    private volatile boolean started;
    private volatile boolean closed;
    private Channel topologyChannel;

    private OnceConsumer(ConsumerSettings settings, List<ConsumerListener> listeners) {
        this.settings = settings;
        this.listener = new ListenerCalls(listeners);
        this.watch = new ConnectionWatch(settings.connection(), this.listener);
        ConsumerConfig c = settings.config();
        this.gate = new PauseGate(c.storeBackoff(), c.maxStoreBackoff(), c.clock(), this.listener);
    }

    /**
     * {@code factory.newConnection(clientName)}, failing with a message that names the broker's host and port and
     * what to check (amqp-client's own {@code ConnectException: Connection refused} names no host).
     *
     * @param clientName shown in the management UI's connection list
     * @throws StartupException when RabbitMQ cannot be reached, refuses the credentials or does not answer in time
     */
    public static Connection connect(ConnectionFactory factory, String clientName) {
        Objects.requireNonNull(factory, "factory");
        String broker = (factory.isSSL() ? "amqps://" : "amqp://") + factory.getHost() + ":" + factory.getPort()
                + " (virtual host '" + factory.getVirtualHost() + "')";
        try {
            return factory.newConnection(clientName);
        } catch (PossibleAuthenticationFailureException e) {
            throw new StartupException("RabbitMQ at " + broker + " refused user '" + factory.getUsername() + "' ("
                    + e.getMessage() + "): check ConnectionFactory.setUsername/setPassword and the user's"
                    + " permissions on the virtual host", e);
        } catch (SSLException e) {
            throw new StartupException("TLS with RabbitMQ at " + broker + " failed: " + e.getMessage()
                    + ". The broker's certificate must chain to a CA in the trust store of the SSLContext given to"
                    + " ConnectionFactory.useSslProtocol, and name the host connected to (with"
                    + " enableHostnameVerification); see docs/security.md", e);
        } catch (IOException e) {
            throw new StartupException("Cannot reach RabbitMQ at " + broker + ": " + e
                    + ". Check that RabbitMQ runs there, or set its address with ConnectionFactory.setHost and"
                    + " setPort (or setUri)", e);
        } catch (TimeoutException e) {
            throw new StartupException("RabbitMQ at " + broker + " did not answer within "
                    + factory.getConnectionTimeout() + " ms: check the address and the network", e);
        }
    }

    /**
     * @param connection a connection the caller owns (automatic recovery, the client's default, is recommended)
     * @param queue      the work queue
     * @param executor   claims and records the work, with any store, in the default or the transactional mode
     */
    public static Builder builder(Connection connection, String queue, Idempotency executor) {
        return new Builder(connection, queue, executor);
    }

    /**
     * Checks the connection, the store and the work queue, declares the configured topology and starts consuming
     * on every channel. A store that cannot be reached yet does not fail the start: the consumer starts paused
     * and probes it with back-off. When a step fails, whatever the earlier ones began is stopped first (channels,
     * worker threads, the listeners on the connection) and the consumer is closed.
     *
     * @throws StartupException when the connection is closed, the work queue does not exist, or the broker refuses
     *                          to declare the topology or to consume (the message says what to declare, set or
     *                          grant)
     * @throws io.github.once.StoreMisconfiguredException when the store is not set up (the message names the fix)
     */
    public synchronized OnceConsumer start() throws IOException {
        if (started) {
            throw new IllegalStateException("consumer on '" + settings.queue() + "' was already started");
        }
        started = true;
        try {
            startSteps();
        } catch (IOException | RuntimeException | Error e) {
            // Whatever step failed, what the earlier ones began stops before the exception leaves: no channel
            // left consuming, no worker thread, no listener on the caller's connection. The consumer is closed.
            close();
            throw e;
        }
        return this;
    }

    private void startSteps() throws IOException {
        Connection connection = settings.connection();
        if (!connection.isOpen()) {
            throw new StartupException("The connection to RabbitMQ at " + ConnectionWatch.describe(connection)
                    + " is closed (" + connection.getCloseReason() + "): check that RabbitMQ runs there, and start"
                    + " the consumer on an open connection", connection.getCloseReason());
        }
        try {
            settings.executor().store().verify();
        } catch (StoreUnavailableException e) {
            // Starts paused, as in an outage: no delivery is taken until the back-off ends, and then the first
            // deliveries probe the store. A store that is misconfigured still fails here.
            gate.failed(e);
        }
        Topology topology = settings.config().topology();
        if (!topology.declaresWorkQueue()) {
            requireWorkQueue(connection); // before declaring retry and dead-letter queues for it
        }
        if (topology.declaresAnything()) {
            // Kept open while consuming: automatic recovery re-declares recorded queues on the channel that
            // declared them, so a durable queue deleted during an outage comes back.
            topologyChannel = settings.connection().createChannel();
            try {
                settings.config().topology().declare(topologyChannel, settings.queue(), settings.config().retry());
            } catch (IOException e) {
                throw refused("declare the queues of '" + settings.queue() + "'", e);
            }
        }
        for (int i = 0; i < settings.config().channels(); i++) {
            ConsumerWorker worker = new ConsumerWorker(settings, i, gate, listener);
            try {
                worker.openNow();
            } catch (IOException e) {
                throw refused("consume from '" + settings.queue() + "'", e);
            }
            Thread thread = new Thread(worker, "once-consumer-" + settings.queue() + "-" + i);
            thread.setDaemon(true);
            workers.add(worker);
            threads.add(thread);
            thread.start();
        }
        watch.install();
        listener.onStart(settings.queue(), describe(settings.executor().store()), settings.config());
    }

    /** Its own description, or its class's simple name when it has none of its own. */
    private static String describe(Object part) {
        String text = String.valueOf(part);
        return text.startsWith(part.getClass().getName() + "@") ? part.getClass().getSimpleName() : text;
    }

    /** A start-up step the broker refused, with its reply text (which names the queue or exchange and the user). */
    private StartupException refused(String step, IOException e) {
        String reply = e.getCause() instanceof ShutdownSignalException s && s.getReason() instanceof AMQP.Channel.Close c
                ? c.getReplyCode() + " " + c.getReplyText()
                : String.valueOf(e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
        String fix = reply.contains("ACCESS_REFUSED")
                ? ": the user needs configure on the work queue and its .once.dlq and .once.delay.<ms> queues, write"
                        + " on the exchange amq.default, and read on the work queue and its delay queues (the"
                        + " permission regexes are in docs/security.md)"
                : "";
        return new StartupException("RabbitMQ at " + ConnectionWatch.describe(settings.connection()) + " refused to "
                + step + " (" + reply + ")" + fix, e);
    }

    /** Declares the work queue passively on a channel of its own (a 404 closes the channel). */
    private void requireWorkQueue(Connection connection) throws IOException {
        Channel probe = connection.createChannel();
        try {
            probe.queueDeclarePassive(settings.queue());
        } catch (IOException e) {
            String broker = ConnectionWatch.describe(connection);
            String text = String.valueOf(e.getCause() != null ? e.getCause().getMessage() : e.getMessage());
            if (text.contains("404") || text.contains("NOT_FOUND")) {
                throw new StartupException("The work queue '" + settings.queue() + "' does not exist on RabbitMQ at "
                        + broker + ": declare it before starting the consumer (with your other queues), or let"
                        + " the consumer declare it with .topology(Topology.declareAll(Topology.QueueType.CLASSIC)) (or"
                        + " QUORUM)", e);
            }
            throw new StartupException("The work queue '" + settings.queue() + "' cannot be checked on RabbitMQ at "
                    + broker + " (" + text + "): check the user's permissions on it", e);
        } finally {
            closeQuietly(probe);
        }
    }

    public String queue() {
        return settings.queue();
    }

    /** The settings this consumer runs with. */
    public ConsumerConfig config() {
        return settings.config();
    }

    /**
     * Whether consumption is paused: the store (or the broker, for moves) was unreachable, or the connection to the
     * broker is lost. {@link #state()} tells which.
     */
    public boolean isPaused() {
        State state = state();
        return state == State.PAUSED || state == State.DISCONNECTED;
    }

    /** What the consumer is doing now: running, paused for the store, or waiting for the broker connection. */
    public State state() {
        if (closed) {
            return State.CLOSED;
        }
        if (!started) {
            return State.NOT_STARTED;
        }
        if (!settings.connection().isOpen()) {
            return State.DISCONNECTED;
        }
        return gate.isPaused() ? State.PAUSED : State.RUNNING;
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
        watch.remove();
        workers.forEach(ConsumerWorker::stop);
        long deadline = System.nanoTime() + settings.config().shutdownTimeout().toNanos();
        for (int i = 0; i < threads.size(); i++) {
            Thread t = threads.get(i);
            try {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (t.isAlive()) {
                log.warn("Consumer {}: work still running after {}; closing its channel, the broker requeues it",
                        settings.queue(), settings.config().shutdownTimeout());
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
        } catch (IOException | TimeoutException | RuntimeException e) {
            log.debug("Closing the topology channel failed", e);
        }
    }

    /** The consumer's parts, and its settings one by one (as in {@link ConsumerConfig.Builder}). */
    public static final class Builder extends ConsumerOptions<Builder> {
        private final Connection connection;
        private final String queue;
        private final Idempotency executor;
        private RequestHandler handler;
        private final List<ConsumerListener> listeners = new ArrayList<>();
        private ProcessingLog processingLog;

        private Builder(Connection connection, String queue, Idempotency executor) {
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

        @Override
        Builder self() {
            return this;
        }

        /**
         * Adds a listener that hears what the consumer does (meters, your own logs); each one added hears every
         * event, and one that throws is logged and ignored. A {@link ProcessingLog} passed here becomes the
         * consumer's processing log, as with {@link #processingLog}.
         */
        public Builder listener(ConsumerListener listener) {
            Objects.requireNonNull(listener, "listener");
            if (listener instanceof ProcessingLog given) {
                processingLog = processingLog == null ? given : processingLog;
            } else {
                listeners.add(listener);
            }
            return this;
        }

        /**
         * Where the consumer logs (its start, failed attempts, dead letters, pauses, the connection's loss and
         * recovery, and each delivery at DEBUG). Default: {@code ProcessingLog.builder().queue(queue).build()}, on
         * the logger {@value ProcessingLog#LOGGER}. Register the same instance as the executor's listener to add
         * its outcome, token and store time to each line.
         */
        public Builder processingLog(ProcessingLog processingLog) {
            this.processingLog = Objects.requireNonNull(processingLog, "processingLog");
            return this;
        }

        /** Every setting from {@code config}; the setters called after this change single ones. */
        public Builder config(ConsumerConfig config) {
            return copyFrom(Objects.requireNonNull(config, "config").values());
        }

        public OnceConsumer build() {
            if (handler == null) {
                throw new IllegalArgumentException("handler must be set (handler(...) or requestHandler(...))");
            }
            ConsumerConfig c = ConsumerConfig.builder().copyFrom(this).build();
            Function<Delivery, String> ns = c.namespaceOf();
            if (ns == null) {
                String fixed = c.namespace() != null ? c.namespace() : queue;
                try {
                    IdempotencyKey.of(fixed, "check");
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("namespace defaults to the queue name '" + queue
                            + "', which is not a valid namespace; set namespace(...)", e);
                }
                ns = d -> fixed;
            }
            List<ConsumerListener> all = new ArrayList<>(listeners);
            all.add(processingLog != null ? processingLog : ProcessingLog.builder().queue(queue).build());
            return new OnceConsumer(new ConsumerSettings(connection, queue, executor, handler, c, ns), all);
        }
    }

    /**
     * A consumer (or its connection, {@link #connect}) cannot start because the broker is not reachable or
     * not set up as it needs: the message names the broker and says what to change (which queue to declare, which
     * setting to fix).
     */
    public static class StartupException extends OnceException {
        public StartupException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** What an {@link OnceConsumer} is doing now ({@link OnceConsumer#state()}). */
    public enum State {
        /** Built, not started yet. */
        NOT_STARTED,
        /** Taking deliveries. */
        RUNNING,
        /** Paused: the store (or the broker, for moves) could not be reached; it probes again with back-off. */
        PAUSED,
        /** The connection to the broker is lost; the client's automatic recovery brings the consumer back. */
        DISCONNECTED,
        /** Closed. */
        CLOSED
    }
}
