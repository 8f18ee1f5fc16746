package io.github.once.rabbitmq.internal;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

/**
 * The deliveries whose moved copy or reply is published and awaits the broker's confirm before the delivery
 * itself is settled. Each gets its deadline once, from the consumer's clock, when it is held; past it the wait
 * is given up and counts as a failure.
 */
public final class Confirms {

    /** A delivery waiting for the confirm of {@code pending} until {@code deadline}. */
    record Held(Verdict verdict, ConfirmedSender.Pending pending, Instant deadline) {
    }

    /** A held delivery whose wait is over: {@code failure} is null when its publish was confirmed. */
    public record Done(Verdict verdict, Throwable failure) {
    }

    private final Clock clock;
    private final Duration timeout;
    private final List<Held> held = new ArrayList<>();

    public Confirms(Clock clock, Duration timeout) {
        this.clock = clock;
        this.timeout = timeout;
    }

    public void hold(Verdict verdict, ConfirmedSender.Pending pending) {
        held.add(new Held(verdict, pending, clock.instant().plus(timeout)));
    }

    public int size() {
        return held.size();
    }

    /** Without waiting: the held ones that are confirmed, refused, or past their deadline, in the order held. */
    public List<Done> ready() {
        Instant now = clock.instant();
        List<Done> done = new ArrayList<>();
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (!h.pending().confirmed.isDone() && now.isBefore(h.deadline())) {
                continue;
            }
            it.remove();
            done.add(new Done(h.verdict(), h.pending().confirmed.isDone() ? result(h) : giveUp(h)));
        }
        return done;
    }

    /**
     * Waits for the held deliveries that a {@code basic.ack(multiple)} on {@code last} would cover: those of its
     * channel incarnation with a lower tag. Their fate must be known before such an ack.
     */
    public List<Done> awaitCoveredBy(Inbound last) {
        return await(h -> h.verdict().in().sameIncarnation(last) && h.verdict().in().tag() < last.tag());
    }

    /** Waits for every held delivery, each up to its deadline. */
    public List<Done> awaitAll() {
        return await(h -> true);
    }

    private List<Done> await(Predicate<Held> which) {
        List<Done> done = new ArrayList<>();
        for (Iterator<Held> it = held.iterator(); it.hasNext(); ) {
            Held h = it.next();
            if (which.test(h)) {
                it.remove();
                done.add(new Done(h.verdict(), await(h)));
            }
        }
        return done;
    }

    private Throwable await(Held h) {
        long nanos = Math.max(0, Duration.between(clock.instant(), h.deadline()).toNanos());
        try {
            h.pending().confirmed.get(nanos, TimeUnit.NANOSECONDS);
            return null;
        } catch (TimeoutException e) {
            return giveUp(h);
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
        }
    }

    private Throwable giveUp(Held h) {
        h.pending().abandon("no confirm within " + timeout);
        return result(h);
    }

    /** The failure of a completed publish, or null when it was confirmed. */
    private static Throwable result(Held h) {
        try {
            h.pending().confirmed.join();
            return null;
        } catch (CompletionException e) {
            return e.getCause();
        }
    }
}
