package io.github.once.spring.rabbit;

import com.rabbitmq.client.Channel;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.Handler;
import io.github.once.IdempotencyKey;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.ResultCodec;
import io.github.once.Task;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.ProcessingLog;
import io.github.once.rabbitmq.PublishException;
import io.github.once.rabbitmq.container.ContainerPolicy;
import io.github.once.rabbitmq.container.Disposition;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.TransactionalStore;
import io.github.once.spring.rabbit.internal.BatchCall;
import io.github.once.spring.rabbit.internal.ClaimWatchingStore;
import io.github.once.spring.rabbit.internal.ConnectionEvents;
import io.github.once.spring.rabbit.internal.ContainerPause;
import io.github.once.spring.rabbit.internal.MoveSender;
import io.github.once.spring.rabbit.internal.QueueEvents;
import io.github.once.spring.rabbit.internal.ReplyCapture;
import io.github.once.spring.rabbit.internal.SpringDelivery;
import io.github.once.spring.rabbit.internal.SpringTransactions;
import io.github.once.spring.rabbit.internal.StoredReply;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

import javax.sql.DataSource;

import io.micrometer.observation.ObservationRegistry;

import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.ImmediateRequeueAmqpException;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.connection.AbstractConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;
import org.springframework.amqp.rabbit.support.ListenerExecutionFailedException;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Once around the listener invocation of Spring AMQP's listener containers ({@code SimpleMessageListenerContainer}
 * and {@code DirectMessageListenerContainer}): put it in a container factory's advice chain and an unchanged
 * {@code @RabbitListener} method runs once per message key. Listeners take part when their method is marked
 * {@link Once} (or {@link #register registered}), or every listener of a factory whose chain holds
 * {@link #forEveryListener()}.
 *
 * <p>The container's acknowledge mode stays {@code AUTO}: the advice decides by returning (the container acks)
 * or throwing {@link ImmediateRequeueAmqpException} (the container gives the message back, whatever its
 * {@code defaultRequeueRejected}). Every move is published and confirmed before the advice returns, so a message
 * is acked only after its record, its retry copy or its dead-letter copy is safe:
 * <ul>
 *     <li>processed or duplicate: returns; a request with {@code reply_to} gets the stored reply (the method's
 *     return value, sent by Once after the record, and again to a duplicate);</li>
 *     <li>busy elsewhere: a copy to the delay queue, same attempt; a failure: a copy with the next attempt, and
 *     after the last attempt the dead-letter queue with reason headers; no key, or a conflict: the dead-letter
 *     queue;</li>
 *     <li>store unreachable: the message goes back and the queue's containers stop until the store answers.</li>
 * </ul>
 * A batch listener ({@code List<Message>}) is called once with the messages whose keys one batch claim acquired.
 */
public final class OnceAdvice implements MethodInterceptor, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OnceAdvice.class);

    private final Shared shared;
    private final boolean every;

    private OnceAdvice(Shared shared, boolean every) {
        this.shared = shared;
        this.every = every;
    }

    public static Builder builder(IdempotencyStore store, ConnectionFactory connectionFactory) {
        return new Builder(store, connectionFactory);
    }

    /** This advice for a factory whose every listener is idempotent, with the defaults for unregistered queues. */
    public OnceAdvice forEveryListener() {
        shared.everyListener = true;
        return new OnceAdvice(shared, true);
    }

    /**
     * Before the containers start: while the store does not answer, the containers of Once's queues (every
     * container's, for {@link #forEveryListener()}) are kept from starting, and start once it answers.
     */
    void holdBackWhileStoreIsDown() {
        Set<String> queues = new LinkedHashSet<>(shared.configs.keySet());
        if (shared.everyListener) {
            shared.containers.get().forEach(c -> queues.addAll(List.of(c.getQueueNames())));
        }
        shared.pause.holdBackIfUnreachable(queues);
    }

    /** Makes the listeners of {@code queue} idempotent, with {@code config} (its key, namespace, retry). */
    public void register(String queue, ConsumerConfig config) {
        shared.configs.put(Objects.requireNonNull(queue, "queue"), Objects.requireNonNull(config, "config"));
        shared.policies.remove(queue);
        shared.events(queue).started(queue, shared.storeName, config);
    }

    /** The key namespace of each queue registered with its own settings (by {@code @Once}), by queue. */
    public Map<String, String> namespaces() {
        Map<String, String> namespaces = new TreeMap<>();
        shared.configs.forEach((queue, config) -> namespaces.put(queue, Shared.namespace(queue, config)));
        return namespaces;
    }

    /** The consumer settings every queue starts from. */
    public ConsumerConfig defaults() {
        return shared.defaults;
    }

    /**
     * Deliveries of {@code queue} taken in hand by the advice and not yet settled (decided, and moved or given
     * back where the decision says so); the container acks after that.
     */
    public int inFlight(String queue) {
        QueueEvents events = shared.eventsByQueue.get(queue);
        return events == null ? 0 : events.inFlight();
    }

    /** The containers whose queues are stopped while the store is unreachable (default: none known). */
    public void containers(Supplier<Collection<AbstractMessageListenerContainer>> containers) {
        shared.containers = Objects.requireNonNull(containers, "containers");
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        Object[] args = invocation.getArguments();
        if (args.length != 2 || !(args[0] instanceof Channel)) {
            return invocation.proceed();
        }
        if (args[1] instanceof Message message) {
            try {
                ContainerPolicy policy = policy(message);
                return policy == null ? invocation.proceed() : single(invocation, policy, message);
            } catch (ImmediateRequeueAmqpException e) {
                throw givenBack(e, message);
            }
        }
        if (args[1] instanceof List<?> list && !list.isEmpty() && list.get(0) instanceof Message first) {
            @SuppressWarnings("unchecked")
            List<Message> messages = (List<Message>) list;
            try {
                ContainerPolicy policy = policy(first);
                return policy == null ? invocation.proceed() : batch(invocation, policy, messages);
            } catch (ImmediateRequeueAmqpException e) {
                throw givenBack(e, messages.toArray(new Message[0]));
            }
        }
        return invocation.proceed();
    }

    /**
     * The container wraps a listener's exceptions inside the advice chain, so one thrown by the advice itself (a
     * store outage, retry queues that could not be declared) arrives bare: a simple container then ends its
     * consumer and starts another, which races a pause's stop and start and could leave a consumer holding a
     * delivery that no thread reads. Wrapped as the container's own, the deliveries are requeued and the consumer
     * carries on until the pause stops it.
     */
    private static ListenerExecutionFailedException givenBack(ImmediateRequeueAmqpException e, Message... messages) {
        return new ListenerExecutionFailedException(e.getMessage(), e, messages);
    }

    private ContainerPolicy policy(Message message) {
        String queue = message.getMessageProperties().getConsumerQueue();
        if (queue == null || (!every && !shared.configs.containsKey(queue))) {
            return null;
        }
        return shared.policies.computeIfAbsent(queue, this::newPolicy);
    }

    private ContainerPolicy newPolicy(String queue) {
        ConsumerConfig config = shared.configs.getOrDefault(queue, shared.defaults);
        try {
            shared.moves.declare(config.topology(), queue, config.retry());
        } catch (java.io.IOException e) {
            throw new ImmediateRequeueAmqpException("Once could not declare the retry queues of " + queue, e);
        }
        // One threshold for both crash-loop signals, the store's takeovers and a quorum queue's x-delivery-count.
        return ContainerPolicy.of(queue, config, shared.idempotency.crashLoopAfter());
    }

    // ---- one message

    private Object single(MethodInvocation invocation, ContainerPolicy policy, Message message) throws Throwable {
        String queue = message.getMessageProperties().getConsumerQueue();
        QueueEvents events = shared.events(queue);
        events.batch(1);
        SpringDelivery delivery = SpringDelivery.of(message);
        requireRunning(queue, events, List.of(delivery));
        ContainerPolicy.Admitted admitted = policy.admit(delivery);
        events.taken(delivery, admitted.attempt());
        ContainerPolicy.Observations observed = shared.observed(queue);
        if (observed != null) {
            observed.start(delivery, admitted.key(), shared.namespace(queue), admitted.attempt());
        }
        Channel channel = (Channel) invocation.getArguments()[0];
        Disposition action;
        if (!admitted.runs()) {
            action = policy.decide(admitted, null);
        } else {
            ReplyCapture capture = ReplyCapture.forReplyTo(message.getMessageProperties().getReplyTo());
            Handler<byte[]> handler = ctx -> {
                invocation.getArguments()[0] = capture.wrap(channel);
                OnceContext.runWith(ctx, () -> BatchCall.proceed(invocation)); // the listener's OnceContext.current()
                return capture.encoded();
            };
            Task<byte[]> task = new Task<>(admitted.key(), message.getBody(), ResultCodec.bytes(),
                    observed == null ? handler : observed.handler(delivery, admitted.key(), handler));
            Outcome<byte[]> outcome;
            try {
                Idempotency executor = shared.executor(queue);
                Supplier<Outcome<byte[]>> run = () -> shared.transactions != null
                        ? shared.transactions.execute(executor, task) : executor.execute(task);
                outcome = observed == null ? run.get() : observed.within(delivery, run);
            } catch (RuntimeException e) {
                carryOut(queue, events, channel, delivery, admitted.key(), policy.storeFailed(e));
                return null;
            }
            action = policy.decide(admitted, outcome);
        }
        carryOut(queue, events, channel, delivery, admitted.key(), action);
        return null;
    }

    // ---- a batch

    private Object batch(MethodInvocation invocation, ContainerPolicy policy, List<Message> messages) throws Throwable {
        String queue = messages.get(0).getMessageProperties().getConsumerQueue();
        QueueEvents events = shared.events(queue);
        events.batch(messages.size());
        Channel channel = (Channel) invocation.getArguments()[0];
        List<SpringDelivery> deliveries = new ArrayList<>(messages.size());
        for (Message m : messages) {
            deliveries.add(SpringDelivery.of(m));
        }
        requireRunning(queue, events, deliveries);
        List<ContainerPolicy.Admitted> admitted = new ArrayList<>(messages.size());
        List<Task<byte[]>> tasks = new ArrayList<>();
        BatchCall call = new BatchCall(invocation);
        ContainerPolicy.Observations observed = shared.observed(queue);
        for (int i = 0; i < messages.size(); i++) {
            Message m = messages.get(i);
            SpringDelivery d = deliveries.get(i);
            ContainerPolicy.Admitted a = policy.admit(d);
            events.taken(d, a.attempt());
            admitted.add(a);
            if (observed != null) {
                observed.start(d, a.key(), shared.namespace(queue), a.attempt());
            }
            if (a.runs()) {
                int taskIndex = tasks.size();
                call.add(m, a.key());
                Handler<byte[]> handler = ctx -> call.runFor(taskIndex);
                tasks.add(new Task<>(a.key(), m.getBody(), ResultCodec.bytes(),
                        observed == null ? handler : observed.handler(d, a.key(), handler)));
            }
        }
        List<Outcome<byte[]>> outcomes;
        try {
            if (tasks.isEmpty()) {
                outcomes = List.of();
            } else if (shared.transactions != null) {
                outcomes = shared.transactions.executeBatch(shared.executor(queue), tasks, call::invokeWith);
            } else {
                Idempotency executor = shared.executor(queue);
                Supplier<List<Outcome<byte[]>>> run =
                        () -> ClaimWatchingStore.watching(call::claimed, () -> executor.executeAll(tasks));
                outcomes = observed == null ? run.get() : observed.within(deliveries.get(0), run);
            }
        } catch (RuntimeException e) {
            Disposition requeue = policy.storeFailed(e);
            for (int i = 0; i < deliveries.size(); i++) {
                events.settled(deliveries.get(i), admitted.get(i).key(), requeue.action());
            }
            shared.pause.pause(queue, e);
            throw new ImmediateRequeueAmqpException("Once: the store is unreachable; the batch goes back", e);
        }
        int next = 0;
        for (int i = 0; i < admitted.size(); i++) {
            ContainerPolicy.Admitted a = admitted.get(i);
            Outcome<byte[]> outcome = a.runs() ? outcomes.get(next++) : null;
            try {
                carryOut(queue, events, channel, deliveries.get(i), a.key(), policy.decide(a, outcome));
            } catch (ImmediateRequeueAmqpException e) {
                // The container gives the whole batch back: the deliveries not carried out yet go back too.
                for (int j = i + 1; j < admitted.size(); j++) {
                    events.settled(deliveries.get(j), admitted.get(j).key(), ConsumerAction.REQUEUED);
                }
                throw e;
            }
        }
        return null;
    }

    // ---- carrying out a decision

    /**
     * Carries out a decision before the container acks. A delivery whose channel closed while it was in hand was
     * requeued by the broker with the channel, and the container's ack cannot reach it: Once sends no copy (it
     * would double the redelivery) and reports it {@code ABANDONED}, as {@code OnceConsumer} does; a reply still
     * goes out.
     */
    private void carryOut(String queue, QueueEvents events, Channel channel, SpringDelivery delivery,
                          IdempotencyKey key, Disposition decided) {
        ContainerPolicy.Observations observed = shared.observed(queue);
        Disposition action = observed == null ? decided : observed.traced(delivery, decided);
        boolean live = channel == null || channel.isOpen();
        if (action instanceof Disposition.Requeue requeue) {
            events.settled(delivery, key, live ? action.action() : ConsumerAction.ABANDONED);
            shared.pause.pause(queue, requeue.cause());
            throw new ImmediateRequeueAmqpException("Once: the store is unreachable; the message goes back",
                    requeue.cause());
        }
        if (!live && action instanceof Disposition.Move) {
            events.settled(delivery, key, ConsumerAction.ABANDONED);
            return;
        }
        if (action instanceof Disposition.Move move) {
            try {
                shared.moves.move(move.queue(), move.properties(), delivery.getBody());
            } catch (RuntimeException e) {
                events.settled(delivery, key, ConsumerAction.REQUEUED);
                // As OnceConsumer pauses: not straight back into the same failure, in a hot loop.
                shared.pause.pause(queue, e instanceof PublishException ? e : new PublishException(
                        move.properties().getMessageId(), "the copy for " + move.queue() + " was not sent: " + e, e));
                throw new ImmediateRequeueAmqpException("Once: the copy for " + move.queue()
                        + " was not confirmed; the message goes back", e);
            }
            events.moved(delivery, key, move);
        } else if (action instanceof Disposition.Reply reply) {
            try {
                StoredReply stored = StoredReply.decode(reply.body(), reply.properties());
                shared.moves.reply(reply.replyTo(), stored.properties(), stored.body());
            } catch (RuntimeException e) {
                log.warn("Once: the reply to {} could not be sent (a reply is best effort): {}", reply.replyTo(),
                        e.toString());
            }
        }
        events.settled(delivery, key, live ? action.action() : ConsumerAction.ABANDONED);
    }

    /** While the queue is paused its containers are stopping: what still arrives goes back untouched. */
    private void requireRunning(String queue, QueueEvents events, List<SpringDelivery> deliveries) {
        if (shared.pause.isPaused(queue)) {
            deliveries.forEach(events::bounced);
            throw new ImmediateRequeueAmqpException("Once: the store is unreachable; the message goes back");
        }
    }

    @Override
    public void close() {
        shared.pause.close();
        shared.moves.close();
        shared.executors.values().forEach(Idempotency::close);
    }

    /** What the advice and its every-listener view share. */
    private static final class Shared {
        final ConsumerConfig defaults;
        final IdempotencyConfig idempotency;
        /** What the executors record in: the store, watched for the batch listeners' claims, or in transactions. */
        final IdempotencyStore records;
        final ProcessingLog executorLog = ProcessingLog.defaults();
        final Function<String, OnceListener> executorListeners;
        final Map<String, Idempotency> executors = new ConcurrentHashMap<>();
        final SpringTransactions transactions;
        final MoveSender moves;
        final ContainerPause pause;
        final BiFunction<String, IntSupplier, ConsumerListener> listeners;
        final String storeName;
        final Map<String, ConsumerConfig> configs = new ConcurrentHashMap<>();
        final Map<String, ContainerPolicy> policies = new ConcurrentHashMap<>();
        final Map<String, QueueEvents> eventsByQueue = new ConcurrentHashMap<>();
        volatile Supplier<Collection<AbstractMessageListenerContainer>> containers = List::of;
        volatile boolean everyListener;
        final ObservationRegistry observations;
        /** Each queue's observations; empty without a registry (then no Micrometer class is loaded). */
        final Map<String, ContainerPolicy.Observations> observed = new ConcurrentHashMap<>();

        Shared(Builder b) {
            this.defaults = b.consumer;
            this.idempotency = b.idempotency;
            this.executorListeners = b.executorListeners;
            this.storeName = String.valueOf(b.store);
            this.observations = b.observations;
            this.transactions = b.transactionManager == null ? null : SpringTransactionsFactory.create(b);
            this.records = transactions != null ? b.store : new ClaimWatchingStore(b.store);
            this.moves = new MoveSender(publishing(b.connectionFactory), b.consumer);
            ConnectionEvents.watch((AbstractConnectionFactory) b.connectionFactory, eventsByQueue::values);
            this.listeners = b.consumerListeners;
            this.pause = new ContainerPause(b.store, moves::check, b.consumer.storeBackoff(),
                    b.consumer.maxStoreBackoff(),
                    () -> containers.get(), this::events);
        }

        /**
         * The executor of {@code queue}'s listeners, made at its first delivery: its listeners are told the queue's
         * key namespace, so store calls are counted per namespace. The processing log's executor side gives the
         * queues' lines their outcome, token and store time (matched per listener thread) and logs takeovers.
         */
        Idempotency executor(String queue) {
            return executors.computeIfAbsent(queue, q -> {
                ConsumerConfig config = configs.getOrDefault(q, defaults);
                String namespace = namespace(q, config);
                Idempotency.Builder executor = Idempotency.builder(records).config(idempotency).listener(executorLog)
                        .listener(executorListeners.apply(namespace));
                if (transactions != null) {
                    // Spring's transactions run each task in a joining scope; the executor's own says the mode.
                    executor.transactional();
                }
                if (observations != null) {
                    executor.observationRegistry(observations);
                }
                return executor.build();
            });
        }

        /** The observations of {@code queue}'s deliveries; null without an observation registry. */
        ContainerPolicy.Observations observed(String queue) {
            return observations == null ? null
                    : observed.computeIfAbsent(queue, q -> ContainerPolicy.observations(executor(q), q));
        }

        String namespace(String queue) {
            return namespace(queue, configs.getOrDefault(queue, defaults));
        }

        static String namespace(String queue, ConsumerConfig config) {
            return config.namespace() != null ? config.namespace() : queue;
        }

        /** The events of {@code queue}; its listener is made at the first event. */
        QueueEvents events(String queue) {
            return eventsByQueue.computeIfAbsent(queue, q -> new QueueEvents(ProcessingLog.builder().queue(q).build(),
                    inFlight -> listeners.apply(q, inFlight), observed(q)));
        }

        /** The factory's publisher connection factory when it has one (as RabbitTemplate would publish), else it. */
        private static ConnectionFactory publishing(ConnectionFactory factory) {
            if (factory instanceof AbstractConnectionFactory abstractFactory
                    && abstractFactory.getPublisherConnectionFactory() != null) {
                return abstractFactory.getPublisherConnectionFactory();
            }
            return factory;
        }
    }

    /** Builds the advice; everything but the store and the connection factory has a default. */
    public static final class Builder {
        private final IdempotencyStore store;
        private final ConnectionFactory connectionFactory;
        private IdempotencyConfig idempotency = IdempotencyConfig.defaults();
        private ConsumerConfig consumer = ConsumerConfig.defaults();
        private Function<String, OnceListener> executorListeners = namespace -> OnceListener.NONE;
        private BiFunction<String, IntSupplier, ConsumerListener> consumerListeners = (q, n) -> ConsumerListener.NONE;
        private PlatformTransactionManager transactionManager;
        private DataSource dataSource;
        private ObservationRegistry observations;

        private Builder(IdempotencyStore store, ConnectionFactory connectionFactory) {
            this.store = Objects.requireNonNull(store, "store");
            this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
        }

        /** Lease, retention and fingerprint. */
        public Builder idempotency(IdempotencyConfig config) {
            this.idempotency = Objects.requireNonNull(config, "idempotency");
            return this;
        }

        /** Key, namespace, retry, topology, move timeout and store back-off for every queue not registered. */
        public Builder consumer(ConsumerConfig config) {
            this.consumer = Objects.requireNonNull(config, "consumer");
            return this;
        }

        /**
         * A listener of each queue's executor, given the queue's key namespace (such as once-micrometer's
         * {@code OnceMeters.executor(namespace)}): outcomes, handler times and store calls.
         */
        public Builder executorListeners(Function<String, OnceListener> listeners) {
            this.executorListeners = Objects.requireNonNull(listeners, "executorListeners");
            return this;
        }

        /** A consumer listener per queue (such as once-micrometer's consumer meters). */
        public Builder consumerListeners(Function<String, ConsumerListener> listeners) {
            Objects.requireNonNull(listeners, "consumerListeners");
            return consumerListeners((queue, inFlight) -> listeners.apply(queue));
        }

        /**
         * A consumer listener per queue, made at the queue's first delivery and given the count of its deliveries
         * in flight ({@link OnceAdvice#inFlight}), for a gauge such as once-micrometer's
         * {@code ConsumerMeters.inFlight}. The listener hears what {@code OnceConsumer}'s would: deliveries,
         * batches, retries and dead letters, actions, pauses and resumptions.
         */
        public Builder consumerListeners(BiFunction<String, IntSupplier, ConsumerListener> listeners) {
            this.consumerListeners = Objects.requireNonNull(listeners, "consumerListeners");
            return this;
        }

        /**
         * Transactional mode: each listener runs in a transaction of {@code manager} and the record is written on
         * that transaction's connection of {@code dataSource}. The store must run transactions in that database
         * (a {@link io.github.once.spi.TransactionalStore}: once-jdbc's store, or a tiered store over it).
         */
        public Builder transactional(PlatformTransactionManager manager, DataSource dataSource) {
            this.transactionManager = Objects.requireNonNull(manager, "transactionManager");
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /**
         * Observes each message ({@code io.github.once.OnceObservation}): its {@code once.process} inside Spring
         * AMQP's listener observation when the container has one open, else continuing the message's trace; the
         * store calls and the listener method under it. Without it (the default) no observation is made.
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observations = Objects.requireNonNull(registry, "registry");
            return this;
        }

        public OnceAdvice build() {
            return new OnceAdvice(new Shared(this), false);
        }
    }

    /** Keeps spring-jdbc off the class path of applications that do not use transactional mode. */
    private static final class SpringTransactionsFactory {
        static SpringTransactions create(Builder b) {
            if (!(b.store instanceof TransactionalStore transactional)) {
                throw new IllegalArgumentException("transactional mode needs a store that runs transactions, such as"
                        + " once-jdbc's JdbcIdempotencyStore, but the store is " + b.store);
            }
            return new SpringTransactions(b.transactionManager, b.dataSource, transactional);
        }
    }
}
