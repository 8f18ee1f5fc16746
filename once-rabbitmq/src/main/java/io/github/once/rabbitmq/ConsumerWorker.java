package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.Recoverable;
import com.rabbitmq.client.ShutdownSignalException;

import io.github.once.ExecutionContext;
import io.github.once.IdempotencyKey;
import io.github.once.Outcome;
import io.github.once.ResultCodec;
import io.github.once.StoreUnavailableException;
import io.github.once.Task;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One consuming channel and the thread that works through its deliveries in order. The client's dispatch
 * thread only queues deliveries here; this thread claims, runs handlers, moves and acks, so a slow handler
 * never blocks the connection and acks always go to the channel the delivery came from.
 *
 * <p>Every delivery is stamped with the channel's generation. The generation changes whenever the channel shuts
 * down (the broker has then requeued everything unacked on it), so a delivery from an earlier generation is
 * never acked, nacked or moved: its tag would be stale.
 */
final class ConsumerWorker implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(ConsumerWorker.class);
    private static final long POLL_MILLIS = 50;
    private static final Duration RECOVERY_PATIENCE = Duration.ofSeconds(15);

    private final ConsumerSettings s;
    private final int index;
    private final PauseGate gate;
    private final ListenerCalls listener;
    private final ConfirmedSender mover;
    private final BlockingQueue<Inbound> inbox = new LinkedBlockingQueue<>();
    private final AtomicLong generation = new AtomicLong();
    private final AtomicInteger inHand = new AtomicInteger();

    private volatile Channel channel;
    private volatile SessionConsumer consumer;
    private volatile boolean consuming;
    private volatile boolean needsReopen = true;
    private volatile boolean awaitingRecovery;
    private volatile long awaitingSince;
    private volatile boolean stopping;
    private long nextReopen;
    private Duration reopenBackoff = Duration.ofMillis(100);

    record Inbound(Delivery delivery, long generation, Channel channel) {
    }

    ConsumerWorker(ConsumerSettings settings, int index, PauseGate gate, ListenerCalls listener) {
        this.s = settings;
        this.index = index;
        this.gate = gate;
        this.listener = listener;
        this.mover = new ConfirmedSender(settings.connection());
    }

    Channel channel() {
        return channel;
    }

    /** Deliveries received and not yet settled. */
    int inHand() {
        return inHand.get();
    }

    void stop() {
        stopping = true;
    }

    @Override
    public void run() {
        try {
            while (!stopping) {
                try {
                    maintainChannel();
                    Inbound first = inbox.poll(POLL_MILLIS, TimeUnit.MILLISECONDS);
                    if (first != null) {
                        handle(drain(first));
                    }
                } catch (InterruptedException e) {
                    if (stopping) {
                        break;
                    }
                    Thread.currentThread().interrupt();
                    break;
                } catch (RuntimeException e) {
                    log.error("Consumer {}#{}: unexpected failure; continuing", s.queue(), index, e);
                }
            }
        } finally {
            finish();
        }
    }

    // ---- the channel

    private void maintainChannel() {
        if (needsReopen) {
            if (System.nanoTime() - nextReopen < 0) {
                return;
            }
            try {
                open();
                needsReopen = false;
                reopenBackoff = Duration.ofMillis(100);
            } catch (IOException | RuntimeException e) {
                log.warn("Consumer {}#{}: could not open a channel, retrying in {}: {}", s.queue(), index,
                        reopenBackoff, e.toString());
                nextReopen = System.nanoTime() + reopenBackoff.toNanos();
                reopenBackoff = reopenBackoff.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0
                        ? Duration.ofSeconds(5) : reopenBackoff.multipliedBy(2);
                return;
            }
        }
        Channel ch = channel;
        if (ch == null || !ch.isOpen()) {
            return;
        }
        if (awaitingRecovery) {
            // The client re-registers our consumer itself after a connection recovery; wait for it.
            if (System.nanoTime() - awaitingSince < RECOVERY_PATIENCE.toNanos()) {
                return;
            }
            awaitingRecovery = false;
        }
        boolean wanted = !stopping && gate.isOpen();
        try {
            if (wanted && !consuming) {
                SessionConsumer c = consumer;
                ch.basicConsume(s.queue(), false, c);
                consuming = true;
            } else if (!wanted && consuming) {
                cancel(ch);
            }
        } catch (IOException | RuntimeException e) {
            log.warn("Consumer {}#{}: {} failed: {}", s.queue(), index, wanted ? "basic.consume" : "basic.cancel",
                    e.toString());
        }
    }

    /** Opens the channel and starts consuming on the caller's thread, so that start() reports what fails. */
    void openNow() throws IOException {
        open();
        try {
            channel.basicConsume(s.queue(), false, consumer);
        } catch (IOException | RuntimeException e) {
            abortQuietly(channel);
            throw e;
        }
        consuming = true;
        needsReopen = false;
    }

    private void open() throws IOException {
        Channel old = channel;
        if (old != null) {
            // A channel closed by a channel error stays registered for automatic recovery, with our consumer;
            // aborting it unregisters both, so a later connection recovery cannot revive it as a zombie.
            abortQuietly(old);
        }
        Channel ch = s.connection().createChannel();
        if (ch == null) {
            throw new IOException("the connection has no channel left");
        }
        ch.basicQos(s.prefetch());
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
                log.warn("Consumer {}#{} was cancelled by the broker", s.queue(), index);
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
                log.info("Consumer {}#{}: connection lost ({}); waiting for automatic recovery", s.queue(), index,
                        sig.getMessage());
                awaitingSince = System.nanoTime();
                awaitingRecovery = hadConsumer;
            } else {
                log.info("Consumer {}#{}: channel closed ({}); reopening", s.queue(), index, sig.getMessage());
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

    // ---- deliveries

    private List<Inbound> drain(Inbound first) {
        List<Inbound> batch = new ArrayList<>(Math.min(s.maxBatch(), inbox.size() + 1));
        batch.add(first);
        inbox.drainTo(batch, s.maxBatch() - 1);
        return batch;
    }

    private boolean live(Inbound in) {
        return in.generation() == generation.get() && in.channel() == channel;
    }

    private static boolean sameIncarnation(Inbound a, Inbound b) {
        return a.generation() == b.generation() && a.channel() == b.channel();
    }

    /** One delivery's fate once the executor has answered. */
    private static final class Plan {
        final Inbound in;
        final IdempotencyKey key;
        final int attempt;
        ConsumerAction action;
        ConfirmedSender.Pending move;
        ConfirmedSender.Pending reply;
        long confirmDeadline;
        boolean settled;

        Plan(Inbound in, IdempotencyKey key, int attempt) {
            this.in = in;
            this.key = key;
            this.attempt = attempt;
        }

        /** Settled by an ack alone: nothing was published for it that must be confirmed first. */
        boolean ackOnly() {
            return move == null && reply == null;
        }

        long tag() {
            return in.delivery().getEnvelope().getDeliveryTag();
        }
    }

    private void handle(List<Inbound> batch) {
        if (s.batchClaims() && batch.size() > 1) {
            handleTogether(batch);
        } else {
            handleEach(batch);
        }
    }

    /**
     * Takes a delivery in hand: null when it was settled on the spot (its channel is gone, or the consumer is
     * pausing or stopping). A delivery without a usable key is sent to the dead-letter queue right away.
     */
    private Plan admit(Inbound in) {
        if (!live(in)) {
            settled(in, null, ConsumerAction.ABANDONED);
            return null;
        }
        if (stopping || !gate.isOpen()) {
            requeue(in, null);
            return null;
        }
        Delivery d = in.delivery();
        int attempt = Moves.attempt(d);
        listener.onDelivery(d, attempt);
        Plan plan = new Plan(in, key(d), attempt);
        if (plan.key == null) {
            DeadLetterReason reason = s.keys().extract(d).isPresent()
                    ? DeadLetterReason.INVALID_KEY : DeadLetterReason.MISSING_KEY;
            deadLetter(plan, reason, null);
        }
        return plan;
    }

    /**
     * One claim per delivery, each delivery settled as soon as its outcome is known: processed and duplicate
     * ones are acked before the next delivery's claim; moved copies are acked once their confirm is in (checked
     * after every delivery, awaited at the end of the group).
     */
    private void handleEach(List<Inbound> batch) {
        List<Plan> held = new ArrayList<>(0);
        for (Inbound in : batch) {
            Plan p = admit(in);
            if (p == null) {
                continue;
            }
            if (p.key != null) {
                Outcome<byte[]> outcome;
                try {
                    outcome = s.executor().execute(task(p));
                } catch (RuntimeException e) {
                    storeTrouble(e);
                    maintainChannel(); // cancel first, so the broker does not hand the requeued ones straight back
                    requeue(p);
                    continue; // the gate is closed now: admit() gives the rest back
                }
                gate.succeeded();
                act(p, outcome);
            }
            if (p.ackOnly()) {
                ack(p);
            } else {
                held.add(p);
            }
            if (!held.isEmpty()) {
                settleConfirmed(held);
            }
        }
        Throwable moveFailure = null;
        for (Plan p : held) {
            Throwable f = settleAfterConfirm(p);
            moveFailure = f != null ? f : moveFailure;
        }
        if (moveFailure != null) {
            gate.failed(moveFailure);
        }
    }

    /** Settles the held deliveries whose copies are already confirmed (or refused), without waiting. */
    private void settleConfirmed(List<Plan> held) {
        for (int i = 0; i < held.size(); ) {
            Plan p = held.get(i);
            boolean ready = (p.reply == null || p.reply.confirmed.isDone())
                    && (p.move == null || p.move.confirmed.isDone());
            if (!ready) {
                i++;
                continue;
            }
            held.remove(i);
            Throwable f = settleAfterConfirm(p);
            if (f != null) {
                gate.failed(f);
            }
        }
    }

    /**
     * Claims the deliveries in hand with one {@code executeAll} (one claim call and one completion call), then
     * settles them in delivery order as soon as it returns.
     */
    private void handleTogether(List<Inbound> batch) {
        List<Plan> plans = new ArrayList<>(batch.size());
        List<Plan> guarded = new ArrayList<>(batch.size());
        List<Task<byte[]>> tasks = new ArrayList<>(batch.size());
        for (Inbound in : batch) {
            Plan p = admit(in);
            if (p == null) {
                continue;
            }
            plans.add(p);
            if (p.key != null) {
                guarded.add(p);
                tasks.add(task(p));
            }
        }
        if (!tasks.isEmpty()) {
            List<Outcome<byte[]>> outcomes = null;
            try {
                outcomes = tasks.size() == 1 ? List.of(s.executor().execute(tasks.get(0)))
                        : s.executor().executeAll(tasks);
            } catch (RuntimeException e) {
                storeTrouble(e);
                maintainChannel(); // cancel first, so the broker does not hand the requeued ones straight back
                for (Plan p : guarded) {
                    requeue(p);
                }
            }
            if (outcomes != null) {
                gate.succeeded();
                for (int i = 0; i < guarded.size(); i++) {
                    act(guarded.get(i), outcomes.get(i));
                }
            }
        }
        settleInOrder(plans);
    }

    /**
     * Settles a batch in delivery order. A run of consecutive deliveries that need only an ack is acked with one
     * {@code basic.ack(multiple)} on its last tag. That is safe because every delivery of the run is live on the
     * same channel incarnation, everything delivered before the run on it is settled already (earlier batches
     * completely, this batch up to the run), and deliveries after it carry higher tags. A delivery whose copy or
     * reply awaits a confirm ends the run: its own ack (or requeue) comes after the confirm, and no multiple ack
     * covers it while it is unsettled.
     */
    private void settleInOrder(List<Plan> plans) {
        List<Plan> run = new ArrayList<>(plans.size());
        Throwable moveFailure = null;
        for (Plan p : plans) {
            if (p.settled) {
                continue;
            }
            if (p.ackOnly()) {
                if (!run.isEmpty() && !sameIncarnation(run.get(0).in, p.in)) {
                    ackRun(run);
                }
                run.add(p);
                continue;
            }
            ackRun(run);
            Throwable f = settleAfterConfirm(p);
            moveFailure = f != null ? f : moveFailure;
        }
        ackRun(run);
        if (moveFailure != null) {
            gate.failed(moveFailure);
        }
    }

    /** Acks a run of deliveries of one channel incarnation, in tag order, with one frame; then empties it. */
    private void ackRun(List<Plan> run) {
        if (run.size() == 1) {
            ack(run.get(0));
        } else if (!run.isEmpty()) {
            Plan last = run.get(run.size() - 1);
            boolean acked = false;
            if (live(last.in)) {
                try {
                    last.in.channel().basicAck(last.tag(), true);
                    acked = true;
                } catch (IOException | AlreadyClosedException e) {
                    // The broker requeues them with the channel; the keys absorb the redeliveries.
                }
            }
            for (Plan p : run) {
                settled(p, acked ? p.action : ConsumerAction.ABANDONED);
            }
        }
        run.clear();
    }

    private IdempotencyKey key(Delivery delivery) {
        try {
            Optional<String> id = s.keys().extract(delivery);
            return id.isEmpty() ? null : IdempotencyKey.of(s.namespace().apply(delivery), id.get());
        } catch (RuntimeException e) {
            log.warn("Consumer {}#{}: no usable key for delivery {}: {}", s.queue(), index,
                    delivery.getEnvelope().getDeliveryTag(), e.toString());
            return null;
        }
    }

    private void storeTrouble(RuntimeException e) {
        if (!(e instanceof StoreUnavailableException)) {
            log.error("Consumer {}#{}: the executor failed outside the handler; pausing", s.queue(), index, e);
        }
        gate.failed(e);
    }

    private Task<byte[]> task(Plan p) {
        Delivery d = p.in.delivery();
        return new Task<>(p.key, d.getBody(), ResultCodec.bytes(),
                ctx -> s.handler().handle(d, new Context(ctx, p.attempt, d.getEnvelope().isRedeliver())));
    }

    private void act(Plan p, Outcome<byte[]> outcome) {
        Delivery d = p.in.delivery();
        if (outcome instanceof Outcome.Processed<byte[]> processed) {
            p.action = ConsumerAction.PROCESSED;
            p.reply = reply(p, processed.result(), false);
        } else if (outcome instanceof Outcome.Duplicate<byte[]> duplicate) {
            p.action = ConsumerAction.DUPLICATE;
            p.reply = reply(p, duplicate.result(), true);
        } else if (outcome instanceof Outcome.Busy<byte[]> busy) {
            retry(p, ConsumerAction.RETRIED_BUSY, p.attempt,
                    s.retry().delayWhileBusy(Moves.remaining(busy.leaseUntil())));
        } else if (outcome instanceof Outcome.LeaseLost<byte[]>) {
            // Another owner took the key over; retrying lets the next claim see its result (or take over).
            retry(p, ConsumerAction.RETRIED_LEASE_LOST, p.attempt, s.retry().delayAfterFailure(1));
        } else if (outcome instanceof Outcome.Conflict<byte[]>) {
            deadLetter(p, DeadLetterReason.CONFLICT, null);
        } else if (outcome instanceof Outcome.Failed<byte[]> failed) {
            if (log.isDebugEnabled()) {
                log.debug("Consumer {}#{}: handler failed on {} (attempt {})", s.queue(), index, p.key, p.attempt,
                        failed.cause());
            }
            if (p.attempt >= s.retry().maxAttempts()) {
                deadLetter(p, DeadLetterReason.MAX_ATTEMPTS, failed.cause());
            } else {
                retry(p, ConsumerAction.RETRIED_FAILED, p.attempt + 1, s.retry().delayAfterFailure(p.attempt));
            }
        } else {
            throw new IllegalStateException("unknown outcome " + outcome + " for delivery " + d.getEnvelope());
        }
    }

    private void retry(Plan p, ConsumerAction action, int nextAttempt, Duration delay) {
        p.action = action;
        if (!live(p.in)) {
            return; // the broker redelivers the original; a copy would only add a duplicate
        }
        String target = s.retry().strategy() == RetryStrategy.DELAY_QUEUES
                ? Topology.delayQueue(s.queue(), delay) : s.queue();
        p.move = mover.send("", target, true, Moves.retry(p.in.delivery(), nextAttempt), p.in.delivery().getBody());
        p.confirmDeadline = System.nanoTime() + s.moveTimeout().toNanos();
    }

    private void deadLetter(Plan p, DeadLetterReason reason, Throwable error) {
        p.action = ConsumerAction.DEAD_LETTERED;
        if (!live(p.in)) {
            return;
        }
        AMQP.BasicProperties props = Moves.deadLetter(p.in.delivery(), s.queue(), reason, p.attempt, error,
                s.maxErrorLength());
        p.move = mover.send("", Topology.deadLetterQueue(s.queue()), true, props, p.in.delivery().getBody());
        p.confirmDeadline = System.nanoTime() + s.moveTimeout().toNanos();
    }

    private ConfirmedSender.Pending reply(Plan p, byte[] body, boolean duplicate) {
        AMQP.BasicProperties props = p.in.delivery().getProperties();
        String replyTo = props.getReplyTo();
        if (body == null || replyTo == null || replyTo.isEmpty() || (duplicate && props.getCorrelationId() == null)) {
            return null;
        }
        AMQP.BasicProperties replyProps = new AMQP.BasicProperties.Builder()
                .correlationId(props.getCorrelationId())
                .build();
        p.confirmDeadline = System.nanoTime() + s.moveTimeout().toNanos();
        return mover.send("", replyTo, false, replyProps, body);
    }

    /**
     * Waits for a delivery's reply and moved copy to be confirmed, then acks it; requeues it if the copy was not
     * confirmed. Returns that failure, or null.
     */
    private Throwable settleAfterConfirm(Plan p) {
        if (p.reply != null) {
            Throwable f = await(p.reply, p.confirmDeadline);
            if (f != null) {
                log.warn("Consumer {}#{}: the reply for {} was not confirmed: {}", s.queue(), index, p.key,
                        f.toString());
            }
        }
        if (p.move == null) {
            ack(p);
            return null;
        }
        Throwable f = await(p.move, p.confirmDeadline);
        if (f == null) {
            ack(p);
            return null;
        }
        log.warn("Consumer {}#{}: could not move {} ({}): {}; requeueing it", s.queue(), index, p.key, p.action,
                f.toString());
        requeue(p);
        return f;
    }

    private Throwable await(ConfirmedSender.Pending pending, long deadline) {
        try {
            pending.confirmed.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            return null;
        } catch (TimeoutException e) {
            mover.abandon(pending);
            return new PublishException(pending.messageId, "no confirm within " + s.moveTimeout());
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        }
    }

    private void ack(Plan p) {
        Inbound in = p.in;
        if (!live(in)) {
            settled(p, ConsumerAction.ABANDONED);
            return;
        }
        try {
            in.channel().basicAck(p.tag(), false);
            settled(p, p.action);
        } catch (IOException | AlreadyClosedException e) {
            // The broker requeues it with the channel; the key absorbs the redelivery.
            settled(p, ConsumerAction.ABANDONED);
        }
    }

    private void requeue(Plan p) {
        p.settled = true;
        requeue(p.in, p.key);
    }

    private void requeue(Inbound in, IdempotencyKey key) {
        if (!live(in)) {
            settled(in, key, ConsumerAction.ABANDONED);
            return;
        }
        try {
            in.channel().basicNack(in.delivery().getEnvelope().getDeliveryTag(), false, true);
            settled(in, key, ConsumerAction.REQUEUED);
        } catch (IOException | AlreadyClosedException e) {
            settled(in, key, ConsumerAction.ABANDONED);
        }
    }

    private void settled(Plan p, ConsumerAction action) {
        p.settled = true;
        settled(p.in, p.key, action);
    }

    private void settled(Inbound in, IdempotencyKey key, ConsumerAction action) {
        inHand.decrementAndGet();
        listener.onAction(in.delivery(), key, action);
    }

    // ---- shutdown

    private void finish() {
        Channel ch = channel;
        try {
            if (ch != null && ch.isOpen() && consuming) {
                cancel(ch);
            }
        } catch (IOException | RuntimeException e) {
            log.debug("Consumer {}#{}: cancel on stop failed", s.queue(), index, e);
        }
        // Deliveries not started go back now; closing the channel would requeue them too.
        for (Inbound in; (in = inbox.poll()) != null; ) {
            requeue(in, null);
        }
        try {
            if (ch != null && ch.isOpen()) {
                ch.close();
            }
        } catch (IOException | TimeoutException | RuntimeException e) {
            log.debug("Consumer {}#{}: channel close failed", s.queue(), index, e);
        }
        // Deliveries dispatched after the cancel went back with the channel.
        for (Inbound in; (in = inbox.poll()) != null; ) {
            settled(in, null, ConsumerAction.ABANDONED);
        }
        mover.close();
    }

    private void abortQuietly(Channel ch) {
        try {
            ch.abort();
        } catch (IOException | RuntimeException e) {
            log.debug("Consumer {}#{}: abort of a dead channel failed", s.queue(), index, e);
        }
    }

    /** Drops the channel without settling anything: the broker requeues what was in hand. */
    void abort() {
        Channel ch = channel;
        try {
            if (ch != null) {
                ch.abort();
            }
        } catch (IOException | RuntimeException e) {
            log.debug("Consumer {}#{}: abort failed", s.queue(), index, e);
        }
        mover.close();
    }

    /** The handler's view of one execution. */
    private record Context(ExecutionContext execution, int attempt, boolean redelivered) implements DeliveryContext {
        @Override
        public IdempotencyKey key() {
            return execution.key();
        }

        @Override
        public long fencingToken() {
            return execution.fencingToken();
        }

        @Override
        public boolean leaseHeld() {
            return execution.leaseHeld();
        }

        @Override
        public <R> R resource(Class<R> type) {
            return execution.resource(type);
        }
    }
}
