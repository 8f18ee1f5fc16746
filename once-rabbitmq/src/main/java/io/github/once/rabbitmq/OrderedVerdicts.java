package io.github.once.rabbitmq;

import io.github.once.IdempotencyKey;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * A pipelined channel's deliveries in hand, in delivery order, each waiting for its verdict. Verdicts are handed
 * on only as an unbroken run from the oldest delivery, so the {@link Settlement} always gets them in delivery order
 * with every earlier delivery settled (or its copy awaiting a confirm): a {@code basic.ack(multiple)} over such a
 * run covers only deliveries whose work is recorded. A pipeline decides out of order (a duplicate answers at its
 * claim, before the handler ahead of it completes); this puts the order back.
 */
final class OrderedVerdicts {

    /** One delivery's place in line. */
    static final class Slot {
        final Inbound in;
        final IdempotencyKey key;
        private Disposition.Action action;

        private Slot(Inbound in, IdempotencyKey key) {
            this.in = in;
            this.key = key;
        }
    }

    private final ArrayDeque<Slot> line = new ArrayDeque<>();

    /** Takes a place at the end of the line; {@code key} is null for a delivery without one. */
    Slot add(Inbound in, IdempotencyKey key) {
        Slot slot = new Slot(in, key);
        line.add(slot);
        return slot;
    }

    /** The verdict of one delivery; it waits for the deliveries before it. */
    void decide(Slot slot, Disposition.Action action) {
        if (slot.action != null) {
            throw new IllegalStateException("the delivery of " + slot.key + " was decided already");
        }
        slot.action = action;
    }

    /** The verdicts ready from the head of the line, in delivery order; empty while the oldest is undecided. */
    List<Verdict> ready() {
        List<Verdict> out = new ArrayList<>();
        while (!line.isEmpty() && line.peek().action != null) {
            Slot s = line.poll();
            out.add(new Verdict(s.in, s.key, s.action));
        }
        return out;
    }

    /** Deliveries in line, decided or not. */
    int size() {
        return line.size();
    }
}
