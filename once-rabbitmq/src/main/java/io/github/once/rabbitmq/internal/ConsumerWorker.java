package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Delivery;

import io.github.once.ExecutionContext;
import io.github.once.Handler;
import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.ResultCodec;
import io.github.once.Task;
import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.DeliveryContext;
import io.github.once.rabbitmq.container.ContainerPolicy;
import io.github.once.rabbitmq.container.Disposition;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread of one consuming channel: takes the deliveries in hand in batches (of one without batch claims),
 * finds each key once, has the executor claim and run them, asks the {@link Disposition} what becomes of each,
 * and hands the verdicts to the {@link Settlement}. The channel itself is the {@link ChannelSession}'s.
 */
public final class ConsumerWorker implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ConsumerWorker.class);
    private static final long POLL_MILLIS = 50;

    private final ConsumerSettings s;
    private final String name;
    private final int batchSize;
    private final PauseGate gate;
    private final ConsumerListener listener;
    private final AtomicInteger inHand = new AtomicInteger();
    private final ChannelSession session;
    private final DeliveryKeys keys;
    private final Decisions disposition;
    private final Settlement settlement;
    /** Null unless the executor is observed: then no Micrometer class is loaded. */
    private final ContainerPolicy.Observations observed;

    public ConsumerWorker(ConsumerSettings settings, int index, PauseGate gate, ConsumerListener listener) {
        ConsumerConfig c = settings.config();
        this.s = settings;
        this.name = settings.queue() + "#" + index;
        this.batchSize = c.batchSize();
        this.gate = gate;
        this.listener = listener;
        this.keys = new DeliveryKeys(c.keyExtractor(), settings.namespace());
        this.session = new ChannelSession(settings, name, gate, inHand);
        // One threshold for both crash-loop signals: the executor's.
        this.disposition = new Decisions(settings.queue(), c.retry(), c.maxErrorLength(), c.clock(),
                settings.executor().config().crashLoopAfter());
        this.observed = settings.executor().observed()
                ? ContainerPolicy.observations(settings.executor(), settings.queue()) : null;
        ConsumerListener settled = observed == null ? listener : new ListenerCalls(List.of(listener, observed));
        this.settlement = new Settlement(session, new ConfirmedSender(settings.connection()),
                new Confirms(c.clock(), c.moveTimeout()), gate, settled, inHand, name);
    }

    public Channel channel() {
        return session.channel();
    }

    /** Deliveries received and not yet settled. */
    public int inHand() {
        return inHand.get();
    }

    public void stop() {
        session.stop();
    }

    /** Opens the channel and starts consuming on the caller's thread, so that start() reports what fails. */
    public void openNow() throws IOException {
        session.openNow();
    }

    @Override
    public void run() {
        try {
            while (!session.stopping()) {
                try {
                    session.maintain();
                    Inbound first = session.poll(POLL_MILLIS);
                    if (first != null) {
                        handle(session.drain(first, batchSize));
                    }
                    settlement.settleReady();
                    if (settlement.held() > 0 && session.idle()) {
                        settlement.settleAll(); // nothing else to do meanwhile
                    }
                } catch (InterruptedException e) {
                    if (!session.stopping()) {
                        Thread.currentThread().interrupt();
                    }
                    break;
                } catch (RuntimeException e) {
                    log.error("Consumer {}: unexpected failure; continuing", name, e);
                }
            }
        } finally {
            finish();
        }
    }

    private void handle(List<Inbound> batch) {
        listener.onBatch(batch.size());
        List<Admitted> admitted = new ArrayList<>(batch.size());
        List<Task<byte[]>> tasks = new ArrayList<>(batch.size());
        for (Inbound in : batch) {
            Admitted a = admit(in);
            if (a != null) {
                admitted.add(a);
                if (a.key() instanceof DeliveryKey.Keyed keyed && a.early() == null) {
                    tasks.add(task(a, keyed.key()));
                }
            }
        }
        List<Outcome<byte[]>> outcomes = List.of();
        RuntimeException storeFailure = null;
        if (!tasks.isEmpty()) {
            try {
                // A record the store refuses fails only its own task (the executor splits such a batch); the
                // disposition dead-letters it.
                outcomes = observed == null ? s.executor().executeAll(tasks)
                        : observed.within(admitted.get(0).in().delivery(), () -> s.executor().executeAll(tasks));
                gate.succeeded();
            } catch (RuntimeException e) {
                storeFailure = e;
                storeTrouble(e);
                session.maintain(); // cancel first, so the broker does not hand the requeued ones straight back
            }
        }
        List<Verdict> verdicts = new ArrayList<>(admitted.size());
        int next = 0;
        for (Admitted a : admitted) {
            Delivery d = a.in().delivery();
            Disposition action;
            if (a.key() instanceof DeliveryKey.Keyless keyless) {
                action = disposition.keyless(d, a.attempt(), keyless);
            } else if (a.early() != null) {
                action = a.early();
            } else if (storeFailure != null) {
                action = disposition.storeFailed(storeFailure);
            } else {
                action = disposition.decide(d, a.attempt(), outcomes.get(next++));
            }
            if (observed != null) {
                action = observed.traced(d, action);
            }
            verdicts.add(new Verdict(a.in(), a.key().keyOrNull(), action));
        }
        settlement.settle(verdicts);
    }

    /**
     * Takes a delivery in hand: null when it was settled on the spot (its channel is gone, or the consumer is
     * pausing or stopping).
     */
    private Admitted admit(Inbound in) {
        if (!session.live(in)) {
            settlement.abandoned(in);
            return null;
        }
        if (session.stopping() || !gate.isOpen()) {
            settlement.requeue(in, null);
            return null;
        }
        Delivery d = in.delivery();
        int attempt = Moves.attempt(d);
        listener.onDelivery(d, attempt);
        DeliveryKey key = keys.resolve(d);
        if (observed != null) {
            observed.start(d, key.keyOrNull(), s.namespace().apply(d), attempt);
        }
        Disposition early = key instanceof DeliveryKey.Keyed ? disposition.redeliveredTooOften(d, attempt) : null;
        return new Admitted(in, attempt, key, early);
    }

    private Task<byte[]> task(Admitted a, IdempotencyKey key) {
        Delivery d = a.in().delivery();
        Handler<byte[]> handler = ctx -> s.handler().handle(d, new Context(ctx, a.attempt(), d.getEnvelope().isRedeliver()));
        return new Task<>(key, d.getBody(), ResultCodec.bytes(),
                observed == null ? handler : observed.handler(d, key, handler));
    }

    /** Pauses; the processing log reports it (once per outage, at ERROR when waiting will not fix it). */
    private void storeTrouble(RuntimeException e) {
        gate.failed(e);
    }

    // ---- shutdown

    private void finish() {
        try {
            settlement.settleAll();
        } catch (RuntimeException e) {
            log.debug("Consumer {}: settling moves on stop failed", name, e);
        }
        session.cancelQuietly();
        // Deliveries not started go back now; closing the channel would requeue them too.
        for (Inbound in; (in = session.takeQueued()) != null; ) {
            settlement.requeue(in, null);
        }
        session.closeQuietly();
        // Deliveries dispatched after the cancel went back with the channel.
        for (Inbound in; (in = session.takeQueued()) != null; ) {
            settlement.abandoned(in);
        }
        settlement.close();
    }

    /** Drops the channel without settling anything: the broker requeues what was in hand. */
    public void abort() {
        session.abort();
        settlement.close();
    }

    /** The handler's view of one execution; everything but the attempt and the flag comes from the execution. */
    private record Context(ExecutionContext execution, int attempt, boolean redelivered) implements DeliveryContext {
    }
}
