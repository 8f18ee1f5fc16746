package io.github.once.bench.e2e;

import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * One run's measurements: when the first delivery reached the consumer, when the last one was acked, and for
 * each message the nanoseconds to "ack sent" from "delivery in hand" (a run over a backlog) or from "published"
 * (a paced run: then every variant's clock starts at the same place, before the broker and the client's queues).
 * Consumers call it from any thread.
 */
final class Meter {

    private final int messages;
    private final long[] latencies;
    private final AtomicInteger recorded = new AtomicInteger();
    private final AtomicLong firstDelivery = new AtomicLong();
    private final CountDownLatch done = new CountDownLatch(1);
    private final LongAdder effects = new LongAdder();
    private final StoreTimes storeTimes = new StoreTimes();
    private volatile long lastAck;
    private volatile String failure;
    private final long handlerNanos;
    /** Paced runs only: when each message (by its index) was published; null over a backlog. */
    private final AtomicLongArray publishedAt;

    /**
     * @param handlerNanos CPU time each effect spends before it is counted (a handler doing real work)
     * @param paced        whether latencies run from each message's publication ({@link #published})
     */
    Meter(int messages, long handlerNanos, boolean paced) {
        this.messages = messages;
        this.latencies = new long[messages];
        this.handlerNanos = handlerNanos;
        this.publishedAt = paced ? new AtomicLongArray(messages) : null;
    }

    /** A paced run's publisher is about to publish message {@code index}. */
    void published(int index) {
        publishedAt.set(index, System.nanoTime());
    }

    /**
     * The consumer has message {@code index} (its message id) in hand; returns the time to pass to
     * {@link #acked}: now over a backlog, its publication in a paced run.
     */
    long delivered(int index) {
        long now = System.nanoTime();
        firstDelivery.compareAndSet(0, now);
        return publishedAt == null ? now : publishedAt.get(index);
    }

    /** The business effect of one message: counted, so a run proves every message took effect exactly once. */
    void effect() {
        if (handlerNanos > 0) {
            work(handlerNanos);
        }
        effects.increment();
    }

    /** Keeps this thread's core busy for about {@code nanos}: arithmetic the JIT cannot drop, checked by the clock. */
    private static void work(long nanos) {
        long until = System.nanoTime() + nanos;
        long x = 0x9E3779B97F4A7C15L;
        while (System.nanoTime() < until) {
            for (int i = 0; i < 64; i++) {
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        }
        if (x == 0) {
            throw new IllegalStateException("unreachable: xorshift never reaches zero from a non-zero seed");
        }
    }

    void acked(long deliveredAt) {
        long now = System.nanoTime();
        int i = recorded.getAndIncrement();
        if (i < messages) {
            latencies[i] = now - deliveredAt;
        }
        if (i == messages - 1) {
            lastAck = now;
            done.countDown();
        }
    }

    /** Something no variant should ever do happened (a duplicate, a retry): the run ends and is reported. */
    void fail(String reason) {
        if (failure == null) {
            failure = reason;
        }
        done.countDown();
    }

    String failure() {
        return failure;
    }

    /** The listener a Once variant's executor reports its store calls to. */
    StoreTimes storeTimes() {
        return storeTimes;
    }

    int capacity() {
        return messages;
    }

    boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        return done.await(timeout, unit);
    }

    int recorded() {
        return recorded.get();
    }

    long effects() {
        return effects.sum();
    }

    double seconds() {
        return (lastAck - firstDelivery.get()) / 1e9;
    }

    /** The latencies, sorted. */
    long[] sortedLatencies() {
        long[] copy = Arrays.copyOf(latencies, Math.min(messages, recorded.get()));
        Arrays.sort(copy);
        return copy;
    }
}
