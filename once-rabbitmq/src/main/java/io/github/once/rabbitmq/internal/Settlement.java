package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.AlreadyClosedException;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.container.Disposition;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the verdicts of one channel: acks, gives back, and publishes moved copies and replies, acking
 * their deliveries only once the copy is confirmed. A delivery whose channel incarnation is gone is never
 * settled by us (its tag is stale; the broker requeued it).
 *
 * <p>A run of consecutive deliveries that need only an ack is acked with one {@code basic.ack(multiple)} on its
 * last tag. That is safe because every delivery of the run is of one channel incarnation, every delivery taken
 * before the run on it is settled already (held ones with a lower tag are awaited first: a multiple ack never
 * covers a delivery whose copy might still be lost), and the deliveries after it carry higher tags.
 */
public final class Settlement implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Settlement.class);

    private final ChannelSession session;
    private final ConfirmedSender sender;
    private final Confirms confirms;
    private final PauseGate gate;
    private final ConsumerListener listener;
    private final AtomicInteger inHand;
    private final String name;

    Settlement(ChannelSession session, ConfirmedSender sender, Confirms confirms, PauseGate gate,
               ConsumerListener listener, AtomicInteger inHand, String name) {
        this.session = session;
        this.sender = sender;
        this.confirms = confirms;
        this.gate = gate;
        this.listener = listener;
        this.inHand = inHand;
        this.name = name;
    }

    /** Settles one batch's verdicts, given in delivery order; moves and replies are left waiting for confirms. */
    void settle(List<Verdict> verdicts) {
        List<Verdict> run = new ArrayList<>(verdicts.size());
        for (Verdict v : verdicts) {
            if (v.action() instanceof Disposition.Ack) {
                if (!run.isEmpty() && !run.get(0).in().sameIncarnation(v.in())) {
                    ackRun(run);
                }
                run.add(v);
                continue;
            }
            ackRun(run);
            if (v.action() instanceof Disposition.Requeue) {
                requeue(v.in(), v.key());
            } else {
                publish(v);
            }
        }
        ackRun(run);
        settleReady();
    }

    /** Settles the held deliveries whose confirms are in (or overdue), without waiting. */
    void settleReady() {
        finish(confirms.ready());
    }

    /** Waits for every held delivery's confirm (each up to its deadline) and settles it. */
    void settleAll() {
        finish(confirms.awaitAll());
    }

    /** Deliveries waiting for a confirm. */
    int held() {
        return confirms.size();
    }

    private void publish(Verdict v) {
        Disposition action = v.action();
        Inbound in = v.in();
        ConfirmedSender.Pending pending;
        if (action instanceof Disposition.Reply reply) {
            // Sent even for a stale delivery: its redelivery re-sends the reply only with a correlation id.
            pending = sender.send("", reply.replyTo(), false, reply.properties(), reply.body());
        } else if (!session.live(in)) {
            settled(in, v.key(), ConsumerAction.ABANDONED); // the broker redelivers it; a copy would be a duplicate
            return;
        } else {
            Disposition.Move move = (Disposition.Move) action;
            pending = sender.send("", move.queue(), true, move.properties(), in.delivery().getBody());
            sent(in, v.key(), move);
        }
        confirms.hold(v, pending);
    }

    /** Tells the listener a copy was sent: a retry, or a dead letter with its reason. */
    private void sent(Inbound in, IdempotencyKey key, Disposition.Move move) {
        if (move instanceof Disposition.Retry retry) {
            listener.onRetry(in.delivery(), key, retry.action(), retry.nextAttempt(), retry.delay(), retry.error());
        } else if (move instanceof Disposition.DeadLetter dead) {
            listener.onDeadLetter(in.delivery(), key, dead.reason(), dead.error(), dead.detail());
        }
    }

    /** Acks a run of deliveries of one channel incarnation, in tag order, with one frame; then empties it. */
    private void ackRun(List<Verdict> run) {
        if (run.size() == 1) {
            ack(run.get(0));
        } else if (!run.isEmpty()) {
            Verdict last = run.get(run.size() - 1);
            finish(confirms.awaitCoveredBy(last.in())); // a multiple ack must not cover an unconfirmed copy
            boolean acked = false;
            if (session.live(last.in())) {
                try {
                    last.in().channel().basicAck(last.in().tag(), true);
                    acked = true;
                } catch (IOException | AlreadyClosedException e) {
                    // The broker requeues them with the channel; the keys absorb the redeliveries.
                }
            }
            for (Verdict v : run) {
                settled(v.in(), v.key(), acked ? v.action().action() : ConsumerAction.ABANDONED);
            }
        }
        run.clear();
    }

    private void finish(List<Confirms.Done> done) {
        for (Confirms.Done d : done) {
            Verdict v = d.verdict();
            if (d.failure() == null) {
                ack(v);
            } else if (v.action() instanceof Disposition.Reply) {
                log.warn("Consumer {}: the reply for {} was not confirmed: {}", name, v.key(), d.failure().toString());
                ack(v); // the work is recorded; a reply is best effort
            } else {
                log.warn("Consumer {}: could not move {} ({}): {}; requeueing it", name, v.key(), v.action().action(),
                        d.failure().toString());
                requeue(v.in(), v.key());
                gate.failed(d.failure());
            }
        }
    }

    private void ack(Verdict v) {
        Inbound in = v.in();
        if (!session.live(in)) {
            settled(in, v.key(), ConsumerAction.ABANDONED);
            return;
        }
        try {
            in.channel().basicAck(in.tag(), false);
            settled(in, v.key(), v.action().action());
        } catch (IOException | AlreadyClosedException e) {
            // The broker requeues it with the channel; the key absorbs the redelivery.
            settled(in, v.key(), ConsumerAction.ABANDONED);
        }
    }

    /** Gives a delivery back to its queue unprocessed. */
    void requeue(Inbound in, IdempotencyKey key) {
        if (!session.live(in)) {
            settled(in, key, ConsumerAction.ABANDONED);
            return;
        }
        try {
            in.channel().basicNack(in.tag(), false, true);
            settled(in, key, ConsumerAction.REQUEUED);
        } catch (IOException | AlreadyClosedException e) {
            settled(in, key, ConsumerAction.ABANDONED);
        }
    }

    /** Settles nothing on the broker: the delivery's channel is gone, so it was requeued already. */
    void abandoned(Inbound in) {
        settled(in, null, ConsumerAction.ABANDONED);
    }

    private void settled(Inbound in, IdempotencyKey key, ConsumerAction action) {
        inHand.decrementAndGet();
        listener.onAction(in.delivery(), key, action);
    }

    @Override
    public void close() {
        sender.close();
    }
}
