package io.github.once;

import io.github.once.internal.Durations;
import io.github.once.internal.FrontCopy;
import io.github.once.internal.Futures;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;
import io.github.once.spi.RecordCopy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A store over two stores: a store of record (such as the JDBC store) that holds every claim, lease, fencing token
 * and completion, and a front (such as the Redis store) that answers duplicates of completed records without
 * touching the store of record.
 *
 * <pre>{@code
 * TieredIdempotencyStore store = TieredIdempotencyStore.of(redisStore, jdbcStore);
 * Idempotency once = Idempotency.builder(store).build();
 * // transactional mode: the front is written after the transaction commits
 * Idempotency tx = Idempotency.builder(store).scope(store.over(JdbcTransactionScope.of(jdbcStore))).build();
 * }</pre>
 *
 * <p>The front holds completed records only, each a copy of the store of record's (token, fingerprint, result,
 * expiry), kept as the result of the front's own record of the same key, so any {@link IdempotencyStore} can be a
 * front. A claim asks the front first ({@code find}, one call): a completed copy answers {@code Duplicate} (or
 * {@code Conflict} for another fingerprint); anything else goes to the store of record. A completion is written to
 * the store of record first and copied to the front after it (after the commit, in a transaction); a duplicate the
 * store of record answers is copied to the front too, so a front that was emptied fills again.
 *
 * <p>Copies are written off the caller's thread, with the front's {@link IdempotencyStore#insertCopiesAsync} (one
 * step per key on Redis, a claim and a completion on stores that keep the SPI's default): the caller returns once the
 * store of record has answered, since no answer depends on a copy. A copy waits for the next look-up of the front to
 * be answered, or at most {@link Builder#copyDelay(Duration)} (20 ms), and goes with the others waiting in one batch:
 * so a claim's look-up never queues behind the previous batch's copies on the front's connection. Until then a
 * duplicate of its key is answered by the store of record, as it would be with an empty front. A front whose
 * asynchronous calls are the SPI's synchronous defaults (the in-memory store) writes them on the thread that sends
 * them. At most {@link Builder#maxCopiesInFlight(int)} copies (1,024 by default) wait or are in flight at once; a
 * copy beyond that is skipped and counted ({@link #copiesSkipped()}), never waited for and never queued: the next
 * duplicate that reaches the store of record copies the record then.
 *
 * <p>A caller that knows which keys come next (a consumer, each delivery's key as it arrives) passes them to
 * {@link #lookAhead}: the front is read for them then, without waiting, one read in flight at a time and the keys
 * hinted meanwhile together in the next, and their claims take those answers instead of waiting for a read of their
 * own ({@link #readAheadTaken()}). A read ahead, once answered, sends the copies waiting.
 *
 * <p>Losing the front never changes an answer: a front that was flushed or restarted empty only sends claims to
 * the store of record; a front that fails is logged, counted ({@link #frontFailures()}, {@link Listener}) and
 * left alone for {@link Builder#frontPause(Duration)} while every call goes to the store of record. Set the
 * front's own timeout short (a few hundred milliseconds), since one failing call waits that long. A failed copy is
 * reported from the thread that learns of it (the front's own), so {@link Listener} may be called there.
 *
 * <p>A copy expires no later than its record (its retention is what is left of the record's at the time of the
 * copy, by this process's clock). Deleting a record from the store of record by hand before it expires does not
 * delete its copy: delete it from the front too, or flush the front. Closing this store waits a little for the copies
 * in flight (2 s at most), then closes both stores.
 */
public final class TieredIdempotencyStore implements IdempotencyStore {

    private static final Logger log = LoggerFactory.getLogger(TieredIdempotencyStore.class);
    /** Claims whose fingerprint is remembered until their completion; beyond this, the oldest are forgotten. */
    private static final int MAX_PENDING = 100_000;
    /** Copies written to the front at once, by default; beyond it a copy is skipped. */
    private static final int MAX_COPIES_IN_FLIGHT = 1_024;
    /** How long a copy waits for the next look-up at most, by default. */
    private static final Duration COPY_DELAY = Duration.ofMillis(20);
    /** Keys whose front answer was read ahead and not yet taken by a claim; beyond this, the oldest are dropped. */
    private static final int MAX_READ_AHEAD = 10_000;
    /** How long a claim waits for a read ahead of it still in flight before it asks the store of record. */
    private static final long READ_AHEAD_WAIT_MILLIS = 1_000;
    /** How long {@link #close()} waits for the copies in flight before it closes the front. */
    private static final int CLOSE_WAIT_SECONDS = 2;

    private final IdempotencyStore front;
    private final IdempotencyStore records;
    private final Duration frontPause;
    private final Listener listener;
    private final Clock clock;
    private final int maxCopiesInFlight;
    private final Duration copyDelay;
    /** Runs a task once the copy delay is over (on the JDK's shared delay scheduler, then the common pool). */
    private final Executor afterDelay;
    /** Copies held until the next look-up is answered or the delay is over; their places in flight are taken. */
    private final List<IdempotencyRecord> waiting = new ArrayList<>();
    /** Whether a task that sends the waiting copies is scheduled; guarded by {@link #waiting}. */
    private boolean flushScheduled;
    private final Map<Pending, String> fingerprints = new LinkedHashMap<>(16, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Pending, String> eldest) {
            return size() > MAX_PENDING;
        }
    };
    /**
     * The front's answers read ahead of their claims ({@link #lookAhead}), oldest first: each completes with what the
     * front holds, or with null when the read failed. Guarded by itself.
     */
    private final Map<IdempotencyKey, CompletableFuture<Optional<IdempotencyRecord>>> readAhead =
            new LinkedHashMap<>(16, 0.75f, false) {
                @Override
                protected boolean removeEldestEntry(
                        Map.Entry<IdempotencyKey, CompletableFuture<Optional<IdempotencyRecord>>> eldest) {
                    return size() > MAX_READ_AHEAD;
                }
            };
    /**
     * Keys hinted while a read ahead was in flight, with their answers, sent together when it is answered: at most
     * one read ahead is in flight, so a caller that hints each key as it comes still reads the front in batches.
     * Guarded by {@link #readAhead}, as is {@link #reading}.
     */
    private final List<IdempotencyKey> unsent = new ArrayList<>();
    private final List<CompletableFuture<Optional<IdempotencyRecord>>> unsentAnswers = new ArrayList<>();
    private boolean reading;
    private final AtomicLong readAheadTaken = new AtomicLong();
    private final AtomicLong frontHits = new AtomicLong();
    private final AtomicLong frontFailures = new AtomicLong();
    private final AtomicLong copiesSkipped = new AtomicLong();
    private final AtomicInteger copiesInFlight = new AtomicInteger();
    /** Notified when the last copy in flight is done, for {@link #close()}. */
    private final Object copiesDone = new Object();
    private volatile boolean closing;
    private volatile Instant frontDownUntil = Instant.MIN;

    /** Hears about the front: answers it gave, and calls to it that failed. Keep it fast; never throw. */
    public interface Listener {
        Listener NONE = new Listener() {
        };

        /** The front answered a claim (a duplicate or a conflict) without the store of record. */
        default void onFrontAnswer(IdempotencyKey key) {
        }

        /**
         * A call to the front failed; the store of record answers until the pause ends. A failed copy is reported
         * on the thread that completed it (the front's own, such as Lettuce's I/O thread).
         */
        default void onFrontFailure(String operation, RuntimeException failure) {
        }
    }

    private TieredIdempotencyStore(Builder b) {
        this.front = b.front;
        this.records = b.records;
        this.frontPause = b.frontPause;
        this.listener = b.listener;
        this.clock = b.clock;
        this.maxCopiesInFlight = b.maxCopiesInFlight;
        this.copyDelay = b.copyDelay;
        this.afterDelay = CompletableFuture.delayedExecutor(b.copyDelay.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** A tiered store with the default settings: {@code front} before {@code records}, the store of record. */
    public static TieredIdempotencyStore of(IdempotencyStore front, IdempotencyStore records) {
        return builder(front, records).build();
    }

    public static Builder builder(IdempotencyStore front, IdempotencyStore records) {
        return new Builder(front, records);
    }

    public IdempotencyStore front() {
        return front;
    }

    public IdempotencyStore records() {
        return records;
    }

    /** Claims the front answered without the store of record, since this store was built. */
    public long frontHits() {
        return frontHits.get();
    }

    /**
     * Claims whose key the front had read ahead ({@link #lookAhead}), so that they did not wait for a read of their
     * own, since this store was built.
     */
    public long readAheadTaken() {
        return readAheadTaken.get();
    }

    /** Calls to the front that failed, since this store was built. */
    public long frontFailures() {
        return frontFailures.get();
    }

    /**
     * Copies to the front skipped because {@link Builder#maxCopiesInFlight(int)} copies were in flight, since this
     * store was built. A skipped copy changes no answer: the next duplicate the store of record answers copies it.
     */
    public long copiesSkipped() {
        return copiesSkipped.get();
    }

    /** Copies to the front not written yet: waiting to be sent, or sent and not yet answered. */
    public int copiesInFlight() {
        return copiesInFlight.get();
    }

    /**
     * A scope over {@code recordScope} (a scope of the store of record, such as once-jdbc's transactional scope)
     * whose units ask the front first and copy their completions to the front only after they commit. Use it only
     * with scopes whose commit is the real commit: a unit joined to a transaction that the caller commits later
     * would copy a completion that might still roll back.
     *
     * @throws IllegalArgumentException when {@code recordScope} records in another store than this one's store of
     *                                  record
     */
    public ExecutionScope over(ExecutionScope recordScope) {
        if (Objects.requireNonNull(recordScope, "recordScope").store() != records) {
            throw new IllegalArgumentException("the scope records in " + recordScope.store()
                    + ", not in this tiered store's store of record " + records);
        }
        return new TieredScope(recordScope);
    }

    @Override
    public ClaimResult claim(ClaimRequest request) {
        List<IdempotencyRecord> copies = new ArrayList<>(1);
        ClaimResult claim = claim(request, records::claim, copies);
        copyToFront(copies);
        return claim;
    }

    @Override
    public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        List<IdempotencyRecord> copies = new ArrayList<>();
        List<ClaimResult> results = claimAll(requests, records::claimAll, copies);
        copyToFront(copies);
        return results;
    }

    /**
     * As {@link #claimAll}, with the store of record's {@code claimAllAsync} for the keys the front does not answer.
     * The front's copies are read with its {@code findAll} on the caller's thread (the SPI has no asynchronous read).
     */
    @Override
    public CompletionStage<List<ClaimResult>> claimAllAsync(List<ClaimRequest> requests) {
        try {
            List<ClaimResult> results = frontAnswers(requests);
            List<ClaimRequest> missed = missed(requests, results);
            if (missed.isEmpty()) {
                return CompletableFuture.completedFuture(results);
            }
            return then(records.claimAllAsync(missed), claims -> {
                List<IdempotencyRecord> copies = new ArrayList<>();
                merge(results, missed, claims, copies);
                copyToFront(copies);
                return results;
            });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public boolean complete(Lease lease, byte[] result, Duration retention) {
        Instant before = clock.instant();
        boolean recorded = records.complete(lease, result, retention);
        IdempotencyRecord copy = completed(lease, result, retention, before, recorded);
        if (copy != null) {
            copyToFront(List.of(copy));
        }
        return recorded;
    }

    @Override
    public List<Boolean> completeAll(List<Completion> completions) {
        Instant before = clock.instant();
        List<Boolean> recorded = records.completeAll(completions);
        copyToFront(completedCopies(completions, recorded, before));
        return recorded;
    }

    /** As {@link #completeAll}, with the store of record's {@code completeAllAsync}. */
    @Override
    public CompletionStage<List<Boolean>> completeAllAsync(List<Completion> completions) {
        Instant before = clock.instant();
        try {
            return then(records.completeAllAsync(completions), recorded -> {
                copyToFront(completedCopies(completions, recorded, before));
                return recorded;
            });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public boolean release(Lease lease) {
        forget(lease);
        return records.release(lease);
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        return records.renew(lease, leaseDuration);
    }

    /** The store of record's record: the front holds copies only. */
    @Override
    public Optional<IdempotencyRecord> find(IdempotencyKey key) {
        return records.find(key);
    }

    /**
     * Starts reading {@code keys}' copies from the front ({@code findAllAsync}) for claims to come, so that a claim
     * of one of them takes the answer instead of waiting for a read: in a consumer, the read overlaps the work on
     * the deliveries before it. Keys already being read are skipped; at most 10,000 answers are kept (the oldest are
     * dropped), each taken by the first claim of its key.
     *
     * <p>At most one read ahead is in flight: keys hinted while one is are read together once it is answered, on
     * the thread that completes it (the front's own, such as Lettuce's I/O thread), with the copies waiting sent
     * right after that read. So a caller may hint each key as it comes (a consumer does, as each delivery arrives)
     * and the front is still read in batches, with no thread woken for it.
     *
     * <p>An answer read ahead is as good as one read at the claim: a copy is of a completed record, which stays
     * completed until it expires (the claim checks the copy's expiry), and a key that completed after the read only
     * goes to the store of record, which answers it as a duplicate, as with an empty front. A front whose
     * {@code findAllAsync} is the SPI's default reads on the caller's thread. A read that fails counts as a front
     * failure; its claims, and those of the keys hinted while it was in flight, go to the store of record.
     */
    @Override
    public void lookAhead(List<IdempotencyKey> keys) {
        keys.forEach(key -> Objects.requireNonNull(key, "key")); // before any is noted as being read
        if (keys.isEmpty() || closing || frontPaused()) {
            return;
        }
        Unsent toRead;
        synchronized (readAhead) {
            for (IdempotencyKey key : keys) {
                if (!readAhead.containsKey(key) && unsent.size() < MAX_READ_AHEAD) {
                    CompletableFuture<Optional<IdempotencyRecord>> answer = new CompletableFuture<>();
                    readAhead.put(key, answer);
                    unsent.add(key);
                    unsentAnswers.add(answer);
                }
            }
            if (reading || unsent.isEmpty()) {
                return; // the read in flight sends them when it is answered
            }
            reading = true;
            toRead = takeUnsent();
        }
        readAhead(toRead);
    }

    /** Whether a read ahead is in flight (for tests: a failed one is done with once this is false). */
    boolean readingAhead() {
        synchronized (readAhead) {
            return reading;
        }
    }

    /** Keys hinted and not sent yet, with the answers their claims take. */
    private record Unsent(List<IdempotencyKey> keys, List<CompletableFuture<Optional<IdempotencyRecord>>> answers) {
    }

    /** The keys hinted and not sent yet, taken from the lists; the caller holds {@link #readAhead}'s lock. */
    private Unsent takeUnsent() {
        Unsent taken = new Unsent(new ArrayList<>(unsent), new ArrayList<>(unsentAnswers));
        unsent.clear();
        unsentAnswers.clear();
        return taken;
    }

    /** Sends one read ahead; when it is answered, the next one and the copies waiting ({@link #afterReadAhead}). */
    private void readAhead(Unsent toRead) {
        List<CompletableFuture<Optional<IdempotencyRecord>>> answers = toRead.answers();
        CompletionStage<List<Optional<IdempotencyRecord>>> read;
        try {
            read = front.findAllAsync(toRead.keys());
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        read.whenComplete((found, failure) -> {
            boolean answered = failure == null && found != null && found.size() == answers.size();
            for (int i = 0; i < answers.size(); i++) {
                answers.get(i).complete(answered ? found.get(i) : null);
            }
            if (failure != null) {
                frontFailed("find", unchecked(failure));
            }
            afterReadAhead();
        });
    }

    /**
     * After a read ahead was answered: sends the keys hinted meanwhile in one read (or, with the front paused or
     * this store closing, answers them with nothing, so their claims go to the store of record), then the copies
     * waiting, so that the read does not queue behind them on the front's connection.
     */
    private void afterReadAhead() {
        Unsent next;
        boolean send;
        synchronized (readAhead) {
            next = takeUnsent();
            send = !next.keys().isEmpty() && !closing && !frontPaused();
            reading = send;
        }
        if (send) {
            readAhead(next);
        } else {
            next.answers().forEach(answer -> answer.complete(null));
        }
        sendWaiting(false);
    }

    /**
     * Waits for the copies in flight (2 s at most) so that they do not fail on a closed
     * front, then closes both stores. Copies that a call makes after this starts are not written. A copy still in
     * flight after the wait fails on the closed front, which costs nothing but the copy.
     */
    @Override
    public void close() {
        closing = true;
        sendWaiting(false);
        awaitCopies(TimeUnit.SECONDS.toNanos(CLOSE_WAIT_SECONDS));
        try {
            front.close();
        } finally {
            records.close();
        }
    }

    @Override
    public String toString() {
        return "TieredIdempotencyStore[front=" + front + ", records=" + records + "]";
    }

    // ---------------------------------------------------------------- the front

    /** The front's answer to a claim: a duplicate or a conflict from a live copy, else null. */
    private ClaimResult frontAnswer(ClaimRequest request) {
        if (frontPaused()) {
            return null;
        }
        CompletableFuture<Optional<IdempotencyRecord>> ahead = takeReadAhead(request.key());
        if (ahead != null) {
            // The read's own completion sent the copies waiting then.
            Optional<IdempotencyRecord> found = awaitReadAhead(ahead);
            return found == null ? null : answerFromCopy(request, found);
        }
        Optional<IdempotencyRecord> found;
        try {
            found = front.find(request.key());
        } catch (RuntimeException e) {
            frontFailed("find", e);
            return null;
        } finally {
            afterLookUp();
        }
        return answerFromCopy(request, found);
    }

    /** The front's answers to a batch's claims, read with one {@code findAll}; null where it has none. */
    private List<ClaimResult> frontAnswers(List<ClaimRequest> requests) {
        List<ClaimResult> answers = new ArrayList<>(requests.size());
        if (frontPaused()) {
            requests.forEach(request -> answers.add(null));
            return answers;
        }
        List<CompletableFuture<Optional<IdempotencyRecord>>> ahead = new ArrayList<>(requests.size());
        List<IdempotencyKey> unread = new ArrayList<>(requests.size());
        for (ClaimRequest request : requests) {
            CompletableFuture<Optional<IdempotencyRecord>> answer = takeReadAhead(request.key());
            ahead.add(answer);
            if (answer == null) {
                unread.add(request.key());
            }
        }
        List<Optional<IdempotencyRecord>> read = null;
        if (!unread.isEmpty()) {
            try {
                read = front.findAll(unread);
            } catch (RuntimeException e) {
                frontFailed("find", e);
            } finally {
                afterLookUp();
            }
        }
        int next = 0;
        for (int i = 0; i < requests.size(); i++) {
            Optional<IdempotencyRecord> found;
            if (ahead.get(i) != null) {
                found = awaitReadAhead(ahead.get(i));
            } else {
                found = read == null ? null : read.get(next);
                next++;
            }
            answers.add(found == null ? null : answerFromCopy(requests.get(i), found));
        }
        return answers;
    }

    /** The answer read ahead for {@code key}, taken so that no later claim uses it; null when none was read. */
    private CompletableFuture<Optional<IdempotencyRecord>> takeReadAhead(IdempotencyKey key) {
        synchronized (readAhead) {
            return readAhead.remove(key);
        }
    }

    /**
     * What a read ahead found, waiting for it a bounded time if still in flight (it is usually answered, since it
     * went out a batch earlier); null when it failed or is late: the store of record answers then.
     */
    private Optional<IdempotencyRecord> awaitReadAhead(CompletableFuture<Optional<IdempotencyRecord>> answer) {
        Optional<IdempotencyRecord> found;
        try {
            found = answer.get(READ_AHEAD_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
        if (found != null) {
            readAheadTaken.incrementAndGet();
        }
        return found;
    }

    private ClaimResult answerFromCopy(ClaimRequest request, Optional<IdempotencyRecord> found) {
        if (found.isEmpty() || found.get().state() != RecordState.COMPLETED) {
            return null;
        }
        IdempotencyRecord copy = FrontCopy.decode(request.key(), found.get().result());
        if (copy == null || !copy.expiresAt().isAfter(clock.instant())) {
            return null;
        }
        frontHits.incrementAndGet();
        try {
            listener.onFrontAnswer(request.key());
        } catch (RuntimeException e) {
            log.warn("A tiered store listener threw; ignored", e);
        }
        boolean conflict = request.fingerprint() != null && copy.fingerprint() != null
                && !request.fingerprint().equals(copy.fingerprint());
        return conflict ? new ClaimResult.Conflict(copy) : new ClaimResult.Duplicate(copy);
    }

    /**
     * Copies completed records to the front without waiting: they wait for the next look-up or the copy delay
     * ({@link #sendWaiting}), or go at once with a zero delay ({@link #send}). Copies beyond
     * {@link #maxCopiesInFlight} are skipped and counted.
     */
    private void copyToFront(List<IdempotencyRecord> completed) {
        if (completed.isEmpty() || closing || frontPaused()) {
            return;
        }
        int granted = reserveCopies(completed.size());
        if (granted < completed.size()) {
            copiesSkipped.addAndGet(completed.size() - granted);
        }
        if (granted == 0) {
            return;
        }
        List<IdempotencyRecord> held = completed.subList(0, granted);
        if (copyDelay.isZero()) {
            send(new ArrayList<>(held));
            return;
        }
        boolean schedule;
        synchronized (waiting) {
            waiting.addAll(held);
            schedule = !flushScheduled;
            flushScheduled = true;
        }
        if (schedule) {
            try {
                afterDelay.execute(() -> sendWaiting(true));
            } catch (RejectedExecutionException e) {
                sendWaiting(true);
            }
        }
    }

    /**
     * After a claim's own look-up was answered: hands the copies waiting, if any, to another thread to send, so
     * that the caller's claim goes on at once (encoding them costs a few microseconds per copy).
     */
    private void afterLookUp() {
        List<IdempotencyRecord> batch = takeWaiting(false);
        if (batch == null) {
            return;
        }
        try {
            ForkJoinPool.commonPool().execute(() -> send(batch));
        } catch (RejectedExecutionException e) {
            send(batch);
        }
    }

    /**
     * Sends the copies waiting, if any, on the calling thread: when the copy delay is over, after a read ahead (on
     * the thread that completed it), and on close (after a claim's own look-up, {@link #afterLookUp} hands them to
     * another thread instead). Only the delay's own task clears the mark that one is scheduled, so a copy added
     * meanwhile is always covered by it.
     */
    private void sendWaiting(boolean delayOver) {
        List<IdempotencyRecord> batch = takeWaiting(delayOver);
        if (batch != null) {
            send(batch);
        }
    }

    /** The copies waiting, taken from the list; null when none wait. */
    private List<IdempotencyRecord> takeWaiting(boolean delayOver) {
        synchronized (waiting) {
            if (delayOver) {
                flushScheduled = false;
            }
            if (waiting.isEmpty()) {
                return null;
            }
            List<IdempotencyRecord> batch = new ArrayList<>(waiting);
            waiting.clear();
            return batch;
        }
    }

    /**
     * Writes copies (their places among those in flight already taken) with one {@code insertCopiesAsync}, each
     * for what is left of its record's retention now; one whose record has expired is dropped.
     */
    private void send(List<IdempotencyRecord> records) {
        Instant now = clock.instant();
        List<RecordCopy> copies = new ArrayList<>(records.size());
        for (IdempotencyRecord record : records) {
            Duration left = Duration.between(now, record.expiresAt());
            if (!left.isNegative() && !left.isZero()) {
                copies.add(new RecordCopy(record.key(), FrontCopy.encode(record), left));
            }
        }
        int expired = records.size() - copies.size();
        if (expired > 0) {
            releaseCopies(expired);
        }
        if (copies.isEmpty()) {
            return;
        }
        CompletionStage<List<Boolean>> written;
        try {
            written = front.insertCopiesAsync(copies);
        } catch (RuntimeException e) {
            written = CompletableFuture.failedFuture(e);
        }
        written.whenComplete((done, failure) -> {
            try {
                if (failure != null) {
                    frontFailed("copy", unchecked(failure));
                }
            } finally {
                releaseCopies(copies.size());
            }
        });
    }

    /** Takes up to {@code wanted} places among the copies in flight; returns how many it took. */
    private int reserveCopies(int wanted) {
        while (true) {
            int now = copiesInFlight.get();
            int granted = Math.min(wanted, maxCopiesInFlight - now);
            if (granted <= 0) {
                return 0;
            }
            if (copiesInFlight.compareAndSet(now, now + granted)) {
                return granted;
            }
        }
    }

    private void releaseCopies(int count) {
        if (copiesInFlight.addAndGet(-count) == 0) {
            synchronized (copiesDone) {
                copiesDone.notifyAll();
            }
        }
    }

    /** Waits until no copy is in flight, {@code nanos} at most. */
    private void awaitCopies(long nanos) {
        long deadline = System.nanoTime() + nanos;
        synchronized (copiesDone) {
            long left = nanos;
            while (copiesInFlight.get() > 0 && left > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(copiesDone, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                left = deadline - System.nanoTime();
            }
        }
    }

    private boolean frontPaused() {
        return clock.instant().isBefore(frontDownUntil);
    }

    private void frontFailed(String operation, RuntimeException e) {
        frontFailures.incrementAndGet();
        boolean wasUp = !frontPaused();
        frontDownUntil = clock.instant().plus(frontPause);
        if (wasUp) {
            log.warn("The front store failed ({}); claims go to the store of record for {}", operation, frontPause, e);
        }
        try {
            listener.onFrontFailure(operation, e);
        } catch (RuntimeException thrown) {
            log.warn("A tiered store listener threw; ignored", thrown);
        }
    }

    // ---------------------------------------------------------------- claims and completions of record

    private record Pending(IdempotencyKey key, long token) {
    }

    /** Remembers an acquired claim's fingerprint for its copy; collects a duplicate's record to copy. */
    private void noteClaim(ClaimRequest request, ClaimResult claim, List<IdempotencyRecord> copies) {
        if (claim instanceof ClaimResult.Acquired acquired) {
            synchronized (fingerprints) {
                fingerprints.put(new Pending(request.key(), acquired.lease().token()), request.fingerprint());
            }
        } else if (claim instanceof ClaimResult.Duplicate duplicate) {
            copies.add(duplicate.record());
        }
    }

    /** The front's answer, else the store of record's; a duplicate's record is collected into {@code copies}. */
    private ClaimResult claim(ClaimRequest request, Function<ClaimRequest, ClaimResult> recordClaim,
                              List<IdempotencyRecord> copies) {
        ClaimResult answer = frontAnswer(request);
        if (answer != null) {
            return answer;
        }
        ClaimResult claim = recordClaim.apply(request);
        noteClaim(request, claim, copies);
        return claim;
    }

    /** As single claims in order: the front answers what it can, the store of record the rest, in one call. */
    private List<ClaimResult> claimAll(List<ClaimRequest> requests,
                                       Function<List<ClaimRequest>, List<ClaimResult>> recordClaims,
                                       List<IdempotencyRecord> copies) {
        List<ClaimResult> results = frontAnswers(requests);
        List<ClaimRequest> missed = missed(requests, results);
        if (missed.isEmpty()) {
            return results;
        }
        merge(results, missed, recordClaims.apply(missed), copies);
        return results;
    }

    /** The requests the front did not answer (null in {@code results}), in order. */
    private static List<ClaimRequest> missed(List<ClaimRequest> requests, List<ClaimResult> results) {
        List<ClaimRequest> missed = new ArrayList<>(requests.size());
        for (int i = 0; i < requests.size(); i++) {
            if (results.get(i) == null) {
                missed.add(requests.get(i));
            }
        }
        return missed;
    }

    /** Puts the store of record's {@code claims} of the {@code missed} requests in their places in {@code results}. */
    private void merge(List<ClaimResult> results, List<ClaimRequest> missed, List<ClaimResult> claims,
                       List<IdempotencyRecord> copies) {
        if (claims.size() != missed.size()) {
            throw new OnceException("store answered " + claims.size() + " claims for " + missed.size() + " requests");
        }
        int next = 0;
        for (int i = 0; i < results.size(); i++) {
            if (results.get(i) == null) {
                ClaimResult claim = claims.get(next);
                noteClaim(missed.get(next), claim, copies);
                results.set(i, claim);
                next++;
            }
        }
    }

    /**
     * A stage that completes with {@code next} of what {@code stage} answers, or with what failed either, itself
     * rather than wrapped in a {@link CompletionException}: callers see what the synchronous call throws.
     */
    private static <T, R> CompletionStage<R> then(CompletionStage<T> stage, Function<T, R> next) {
        return Futures.settled(stage.thenApply(next));
    }

    /** The failure of an asynchronous call, unwrapped, as the unchecked exception its synchronous call throws. */
    private static RuntimeException unchecked(Throwable failure) {
        Throwable cause = Futures.unwrapped(failure);
        return cause instanceof RuntimeException e ? e : new StoreUnavailableException("the front failed", cause);
    }

    private String forget(Lease lease) {
        synchronized (fingerprints) {
            return fingerprints.remove(new Pending(lease.key(), lease.token()));
        }
    }

    private boolean remembered(Lease lease) {
        synchronized (fingerprints) {
            return fingerprints.containsKey(new Pending(lease.key(), lease.token()));
        }
    }

    /**
     * The copy of a recorded completion, or null when it was refused or its claim's fingerprint is not known here
     * (a copy without it could hide a conflict; the next duplicate copies the record instead). Its instants are
     * this process's: completed after {@code before}, and expiring no later than the record.
     */
    private IdempotencyRecord completed(Lease lease, byte[] result, Duration retention, Instant before,
                                        boolean recorded) {
        boolean known = remembered(lease);
        String fingerprint = forget(lease);
        if (!recorded || !known) {
            return null;
        }
        return new IdempotencyRecord(lease.key(), RecordState.COMPLETED, lease.token(), clock.instant(), fingerprint,
                result, before.plus(retention));
    }

    private List<IdempotencyRecord> completedCopies(List<Completion> completions, List<Boolean> recorded,
                                                    Instant before) {
        List<IdempotencyRecord> copies = new ArrayList<>(completions.size());
        for (int i = 0; i < completions.size(); i++) {
            Completion c = completions.get(i);
            IdempotencyRecord copy = completed(c.lease(), c.result(), c.retention(), before,
                    i < recorded.size() && recorded.get(i));
            if (copy != null) {
                copies.add(copy);
            }
        }
        return copies;
    }

    // ---------------------------------------------------------------- transactional mode

    /** Units of the store of record's scope, with the front asked first and copies written after the commit. */
    private final class TieredScope implements ExecutionScope {
        private final ExecutionScope inner;

        TieredScope(ExecutionScope inner) {
            this.inner = inner;
        }

        @Override
        public IdempotencyStore store() {
            return TieredIdempotencyStore.this;
        }

        @Override
        public Unit begin() {
            return new TieredUnit(inner.begin());
        }
    }

    private final class TieredUnit implements ExecutionScope.Unit {
        private final ExecutionScope.Unit inner;
        private final List<IdempotencyRecord> afterCommit = new ArrayList<>();

        TieredUnit(ExecutionScope.Unit inner) {
            this.inner = inner;
        }

        @Override
        public ClaimResult claim(ClaimRequest request) {
            return TieredIdempotencyStore.this.claim(request, inner::claim, afterCommit);
        }

        @Override
        public List<ClaimResult> claimAll(List<ClaimRequest> requests) {
            return TieredIdempotencyStore.this.claimAll(requests, inner::claimAll, afterCommit);
        }

        @Override
        public boolean renewsLeases() {
            return inner.renewsLeases();
        }

        @Override
        public boolean atomic() {
            return inner.atomic();
        }

        @Override
        public <R> R resource(Class<R> type) {
            return inner.resource(type);
        }

        @Override
        public ExecutionScope.Mark mark() {
            return inner.mark();
        }

        @Override
        public boolean complete(Completion completion) {
            Instant before = clock.instant();
            boolean recorded = inner.complete(completion);
            IdempotencyRecord copy = completed(completion.lease(), completion.result(), completion.retention(),
                    before, recorded);
            if (copy != null) {
                afterCommit.add(copy);
            }
            return recorded;
        }

        @Override
        public List<Boolean> completeAll(List<Completion> completions) {
            Instant before = clock.instant();
            List<Boolean> recorded = inner.completeAll(completions);
            afterCommit.addAll(completedCopies(completions, recorded, before));
            return recorded;
        }

        @Override
        public boolean release(Lease lease) {
            forget(lease);
            return inner.release(lease);
        }

        @Override
        public void commit() {
            inner.commit();
            List<IdempotencyRecord> copies = new ArrayList<>(afterCommit);
            afterCommit.clear();
            copyToFront(copies);
        }

        @Override
        public void rollback() {
            afterCommit.clear();
            inner.rollback();
        }

        @Override
        public void close() {
            afterCommit.clear();
            inner.close();
        }
    }

    /** Builds a {@link TieredIdempotencyStore}. */
    public static final class Builder {
        private final IdempotencyStore front;
        private final IdempotencyStore records;
        private Duration frontPause = Duration.ofSeconds(1);
        private Listener listener = Listener.NONE;
        private Clock clock = Clock.systemUTC();
        private int maxCopiesInFlight = MAX_COPIES_IN_FLIGHT;
        private Duration copyDelay = COPY_DELAY;

        private Builder(IdempotencyStore front, IdempotencyStore records) {
            this.front = Objects.requireNonNull(front, "front");
            this.records = Objects.requireNonNull(records, "records");
            if (front == records) {
                throw new IllegalArgumentException("the front and the store of record must be two stores");
            }
        }

        /** How long a failed front is left alone, every call going to the store of record (1 s by default). */
        public Builder frontPause(Duration frontPause) {
            this.frontPause = Durations.requirePositive(frontPause, "frontPause");
            return this;
        }

        public Builder listener(Listener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** This process's clock, for the copies' expiry and the front's pause. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * How many copies may be in flight to the front at once (1,024 by default). A copy beyond it is skipped and
         * counted ({@link TieredIdempotencyStore#copiesSkipped()}), never waited for: the caller is never held by
         * a slow front, and memory stays bounded.
         */
        public Builder maxCopiesInFlight(int maxCopiesInFlight) {
            if (maxCopiesInFlight < 1) {
                throw new IllegalArgumentException("maxCopiesInFlight must be at least 1, not " + maxCopiesInFlight);
            }
            this.maxCopiesInFlight = maxCopiesInFlight;
            return this;
        }

        /**
         * How long a copy may wait for the next look-up of the front before it is sent on its own (20 ms by
         * default). A look-up sends the copies waiting as soon as it is answered: on one connection, as the Redis
         * store has, a look-up sent after a batch of copies would wait for them, and in a consumer the next claim's
         * look-up comes right after a batch's completions. {@link Duration#ZERO} sends each call's copies at once.
         */
        public Builder copyDelay(Duration copyDelay) {
            if (Objects.requireNonNull(copyDelay, "copyDelay").isNegative()) {
                throw new IllegalArgumentException("copyDelay must not be negative, but was " + copyDelay);
            }
            this.copyDelay = copyDelay;
            return this;
        }

        public TieredIdempotencyStore build() {
            return new TieredIdempotencyStore(this);
        }
    }
}
