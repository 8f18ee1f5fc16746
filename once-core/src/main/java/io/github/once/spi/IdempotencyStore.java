package io.github.once.spi;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.StoreMisconfiguredException;
import io.github.once.StoreUnavailableException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where records live. A store implements single steps; the algorithm around a handler (claim, renew, complete
 * or release) lives once, in {@link io.github.once.Idempotency}.
 *
 * <h2>Rules every store follows (checked by {@code IdempotencyStoreContract} in once-testkit)</h2>
 * <ul>
 *   <li>{@link #claim} is one atomic step on one record, never check-then-set: absent, released or lease expired
 *       gives {@code Acquired} with a fencing token strictly greater than any earlier token of that record; a live
 *       lease gives {@code Busy}; completed gives {@code Duplicate}; a different fingerprint (both present) on a
 *       completed record or a live lease gives {@code Conflict}.</li>
 *   <li>Tokens strictly increase per key for as long as the key has a record. Stores are encouraged to issue
 *       {@code max(previous + 1, server time in microseconds)} so tokens keep increasing even across a record's
 *       expiry.</li>
 *   <li>{@link #complete}, {@link #release} and {@link #renew} succeed only with the current token and a record
 *       still in progress; otherwise they change nothing and report it.</li>
 *   <li>Deadlines use the store's clock where it has one (Redis {@code TIME}, SQL {@code CURRENT_TIMESTAMP}).</li>
 *   <li>A store that cannot be reached raises {@link StoreUnavailableException}, never a wrong answer.</li>
 * </ul>
 */
public interface IdempotencyStore extends AutoCloseable {

    ClaimResult claim(ClaimRequest request);

    /**
     * Claims many keys, answering exactly as single claims in order would. Stores that can do so answer in one
     * round trip. A key that appears twice in one batch is claimed twice (the second sees the first).
     */
    default List<ClaimResult> claimAll(List<ClaimRequest> requests) {
        List<ClaimResult> results = new ArrayList<>(requests.size());
        for (ClaimRequest request : requests) {
            results.add(claim(request));
        }
        return results;
    }

    /**
     * Marks the work done and stores its result, kept for {@code retention}.
     *
     * @return false when the lease is no longer current (taken over, released, completed or expired away)
     */
    boolean complete(Lease lease, byte[] result, Duration retention);

    /**
     * Completes many leases, answering exactly as single completions in order would. Stores that can do so answer
     * in one round trip, so a batch of deliveries costs one claim call and one completion call.
     *
     * @return for each completion, in order, whether it was recorded
     */
    default List<Boolean> completeAll(List<Completion> completions) {
        List<Boolean> done = new ArrayList<>(completions.size());
        for (Completion completion : completions) {
            done.add(complete(completion.lease(), completion.result(), completion.retention()));
        }
        return done;
    }

    /**
     * {@link #claimAll} without holding the caller's thread, for pipelines that claim the next deliveries while
     * earlier handlers run. Same answers, same order, same failures (completed exceptionally with the exception
     * {@code claimAll} would throw). The default calls {@code claimAll} on the caller's thread; stores with a
     * non-blocking client answer on their own.
     */
    default CompletionStage<List<ClaimResult>> claimAllAsync(List<ClaimRequest> requests) {
        try {
            return CompletableFuture.completedFuture(claimAll(requests));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** {@link #completeAll} without holding the caller's thread; as {@link #claimAllAsync}. */
    default CompletionStage<List<Boolean>> completeAllAsync(List<Completion> completions) {
        try {
            return CompletableFuture.completedFuture(completeAll(completions));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Writes each copy as a completed record, with its result and retention, where this store holds no live record
     * of its key (none, or one past its expiry); a key whose record is live, in progress or completed, is left as
     * it is. For stores that hold copies of another store's records (a {@link io.github.once.TieredIdempotencyStore}'s
     * front). Fails as {@link #completeAllAsync} does.
     *
     * <p>The default claims the keys ({@link #claimAllAsync}, no fingerprint, a 10-second lease) and completes the
     * claims it acquired ({@link #completeAllAsync}), each with what is left of its copy's retention: two calls, and
     * a claim in progress that others may see between them. Stores override it with one step per key.
     *
     * @return for each copy, in order, whether it was written
     */
    default CompletionStage<List<Boolean>> insertCopiesAsync(List<RecordCopy> copies) {
        return CopyInsertion.byClaimAndComplete(this, copies);
    }

    /**
     * Gives the key back so that a redelivery can claim it at once. The record keeps its fencing counter.
     *
     * @return false when the lease is no longer current
     */
    boolean release(Lease lease);

    /**
     * Extends a live lease to {@code leaseDuration} from now (store clock).
     *
     * @return the renewed lease, or empty when the lease is no longer current
     */
    Optional<Lease> renew(Lease lease, Duration leaseDuration);

    /** The record as stored, if any (a released record shows as in progress with a past lease). */
    Optional<IdempotencyRecord> find(IdempotencyKey key);

    /**
     * The records of many keys, in order, as {@link #find} answers each. Stores that can do so answer in one round
     * trip; a tiered store's front reads a batch's copies with it.
     */
    default List<Optional<IdempotencyRecord>> findAll(List<IdempotencyKey> keys) {
        List<Optional<IdempotencyRecord>> found = new ArrayList<>(keys.size());
        for (IdempotencyKey key : keys) {
            found.add(find(key));
        }
        return found;
    }

    /**
     * {@link #findAll} without holding the caller's thread: same answers, same order, same failures (completed
     * exceptionally with the exception {@code findAll} would throw). The default calls {@code findAll} on the
     * caller's thread; stores with a non-blocking client answer on their own.
     */
    default CompletionStage<List<Optional<IdempotencyRecord>>> findAllAsync(List<IdempotencyKey> keys) {
        try {
            return CompletableFuture.completedFuture(findAll(keys));
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * A hint that {@code keys} are likely to be claimed soon (a consumer's deliveries, each as it arrives). A store
     * that must read before it claims may start reading them now, so the claim does not wait for that read; no
     * answer may depend on the hint, and it must return at once (it may be called from a client library's dispatch
     * thread, and with one key at a time). Does nothing by default.
     */
    default void lookAhead(List<IdempotencyKey> keys) {
    }

    /**
     * Checks, before the first message, that this store can do its job: it answers, and what it needs exists (a
     * table with its columns, scripts that load). Consumers call it when they start, so a setup mistake fails at
     * once with a message that says how to fix it, instead of on the first delivery. Does nothing by default.
     *
     * @throws StoreUnavailableException   when the store cannot be reached (the message names where it was sought)
     * @throws StoreMisconfiguredException when it answers but is not set up (the message names the fix)
     */
    default void verify() {
    }

    @Override
    default void close() {
    }
}
