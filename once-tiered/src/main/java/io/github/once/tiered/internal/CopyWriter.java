package io.github.once.tiered.internal;

import io.github.once.IdempotencyRecord;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Writes copies of completed records to the front on a thread of its own, so no caller waits for the front: a
 * copy changes no answer, it only lets the front answer the next duplicate. The copies queued while a write is
 * under way go together in the next one. A copy is the front's own record of the key, claimed without a
 * fingerprint and completed with the encoded record ({@link FrontCopy}) as its result, so any store can be a
 * front: two calls a batch. The queue is bounded; a copy that finds it full is skipped and counted, never waited
 * for (the next duplicate that reaches the store of record copies the record then).
 */
final class CopyWriter implements AutoCloseable {

    /** How long the front's own claim of a key lasts while its copy is written. */
    private static final Duration COPY_LEASE = Duration.ofSeconds(10);
    /** How long {@link #close()} waits for the copies queued. */
    private static final long CLOSE_WAIT_MILLIS = 2_000;

    private final IdempotencyStore front;
    private final Clock clock;
    private final Consumer<RuntimeException> onFailure;
    private final BlockingQueue<IdempotencyRecord> queue;
    private final int maxPerWrite;
    private final AtomicInteger pending = new AtomicInteger();
    private final AtomicLong skipped = new AtomicLong();
    private final Thread thread;
    private volatile boolean closing;

    /** @param onFailure hears a write that failed, on the writer's thread */
    CopyWriter(IdempotencyStore front, Clock clock, int maxQueued, Consumer<RuntimeException> onFailure) {
        this.front = front;
        this.clock = clock;
        this.onFailure = onFailure;
        this.queue = new ArrayBlockingQueue<>(maxQueued);
        this.maxPerWrite = Math.min(maxQueued, 1_000);
        this.thread = new Thread(this::run, "once-tiered-copies");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Queues copies of completed records, skipping (and counting) those that find the queue full. */
    void add(List<IdempotencyRecord> records) {
        if (closing) {
            return;
        }
        for (IdempotencyRecord record : records) {
            pending.incrementAndGet();
            if (!queue.offer(record)) {
                pending.decrementAndGet();
                skipped.incrementAndGet();
            }
        }
    }

    long skipped() {
        return skipped.get();
    }

    /** Copies queued or being written. */
    int pending() {
        return pending.get();
    }

    private void run() {
        List<IdempotencyRecord> batch = new ArrayList<>();
        while (!closing || !queue.isEmpty()) {
            try {
                IdempotencyRecord first = queue.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, maxPerWrite - 1);
                write(batch);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                onFailure.accept(e);
            } finally {
                pending.addAndGet(-batch.size());
                batch.clear();
            }
        }
    }

    /** Claims the keys on the front and completes the claims acquired, each for what is left of its retention. */
    private void write(List<IdempotencyRecord> records) {
        Instant now = clock.instant();
        List<IdempotencyRecord> live = new ArrayList<>(records.size());
        List<ClaimRequest> claims = new ArrayList<>(records.size());
        for (IdempotencyRecord record : records) {
            Duration left = Duration.between(now, record.expiresAt());
            if (left.compareTo(Duration.ZERO) > 0) {
                live.add(record);
                claims.add(new ClaimRequest(record.key(), null, COPY_LEASE, left));
            }
        }
        if (claims.isEmpty()) {
            return;
        }
        List<ClaimResult> claimed = front.claim(claims);
        List<Completion> completions = new ArrayList<>(claimed.size());
        for (int i = 0; i < claimed.size() && i < live.size(); i++) {
            // A key the front holds already (a copy written by another process, say) is left as it is.
            if (claimed.get(i) instanceof ClaimResult.Acquired acquired) {
                completions.add(new Completion(acquired.lease(), FrontCopy.encode(live.get(i)),
                        claims.get(i).retention()));
            }
        }
        if (!completions.isEmpty()) {
            front.complete(completions);
        }
    }

    /** Waits a little for the copies queued (2 s at most), then stops the thread; later copies are not written. */
    @Override
    public void close() {
        closing = true;
        try {
            thread.join(CLOSE_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        thread.interrupt();
    }
}
