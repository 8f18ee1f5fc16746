package io.github.once.cli.demo;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.KeyExtractor;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.Topology;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

/** A Once row's consumer process: its own connection and executor, with {@link OnceConsumer} on top. */
final class OnceProcess extends ConsumerProcess {

    private final Cell cell;
    private final OnceStyle style;
    private final Connection connection;
    private final SeverableStore severable;
    private final Idempotency executor;
    private final AtomicInteger received = new AtomicInteger();
    private final AtomicInteger settled = new AtomicInteger();
    private OnceConsumer consumer;

    private OnceProcess(Cell cell, OnceStyle style, String name, boolean first) throws Exception {
        super(name, first);
        this.cell = cell;
        this.style = style;
        this.connection = cell.newConnection(name);
        OnceStyle.Executor made = style.newExecutor(cell.scenario());
        this.severable = made.severable();
        this.executor = made.executor();
    }

    static OnceProcess start(Cell cell, OnceStyle style, String name, boolean first) throws Exception {
        OnceProcess p = new OnceProcess(cell, style, name, first);
        cell.register(p);
        p.consumer = OnceConsumer.builder(p.connection, cell.queue(), p.executor)
                .namespace(cell.namespace())
                // The seed's rule: the message_id property, else message_id or id in a JSON body.
                .keyExtractor(KeyExtractor.messageId().orElse(KeyExtractor.jsonBody()))
                .prefetch(TrapStyle.PREFETCH)
                .retry(style.retry())
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .moveTimeout(Duration.ofSeconds(3))
                .shutdownTimeout(Duration.ofSeconds(1))
                .storeBackoff(Duration.ofMillis(50), Duration.ofMillis(500))
                .listener(p.new Listener())
                .handler((delivery, ctx) -> cell.work(p, Order.orderId(delivery.getBody()).orElse("unknown"),
                        style.transactional() ? ctx.resource(java.sql.Connection.class) : null))
                .build()
                .start();
        return p;
    }

    @Override
    Connection connection() {
        return connection;
    }

    @Override
    int working() {
        return received.get() - settled.get();
    }

    @Override
    int holding() {
        return 0; // Once never leaves a delivery unsettled once its work is done
    }

    @Override
    boolean holdsUnsettled() {
        return working() > 0; // Once settles a delivery only after its work is recorded
    }

    @Override
    void severStore() {
        if (severable != null) {
            severable.sever();
        }
    }

    @Override
    RuntimeException dieHere() {
        // Its store handle and connection are gone: whatever the executor and the adapter try next fails, as it
        // would in a dead process. A transactional executor rolls the effect back.
        throw new SimulatedCrash(name());
    }

    @Override
    public void close() {
        try {
            if (consumer != null) {
                consumer.close();
            }
        } finally {
            executor.close();
            if (connection.isOpen()) {
                connection.abort(2000);
            }
        }
    }

    private final class Listener implements ConsumerListener {
        @Override
        public void onDelivery(Delivery delivery, int attempt) {
            received.incrementAndGet();
            cell.delivered(delivery.getBody());
            if (style.transactional()) {
                // The claim waits on the first consumer's row lock: being there is the decision point.
                cell.secondDecided(OnceProcess.this);
            }
        }

        @Override
        public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
            settled.incrementAndGet();
            // Told the key is busy (the usual case), or anything else: the second consumer has decided.
            cell.secondDecided(OnceProcess.this);
        }
    }
}
