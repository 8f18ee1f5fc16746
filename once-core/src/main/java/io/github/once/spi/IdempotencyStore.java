package io.github.once.spi;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.StoreMisconfiguredException;
import io.github.once.StoreUnavailableException;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where records live: the SPI a store implements. A store carries out single steps on records; the algorithm
 * around a handler (claim, renew, run, complete or release) lives once, in {@link io.github.once.Idempotency}.
 *
 * <p>Claims, completions and reads come in batches: a consumer claims the deliveries it holds in one call and
 * records their completions in one more, and a single call is a batch of one. A store that can answer a batch in
 * one round trip does; one that cannot answers each element in turn.
 *
 * <h2>Rules every store follows (checked by {@code IdempotencyStoreContract} in once-testkit)</h2>
 * <ul>
 *   <li>A claim is one atomic step on one record, never check-then-set: absent, released or lease expired gives
 *       {@code Acquired} with a fencing token strictly greater than any earlier token of that record; a live lease
 *       gives {@code Busy}; completed gives {@code Duplicate}; a different fingerprint (both present) on a
 *       completed record or a live lease gives {@code Conflict}.</li>
 *   <li>Tokens strictly increase per key for as long as the key has a record. Stores are encouraged to issue
 *       {@code max(previous + 1, server time in microseconds)} so tokens keep increasing even across a record's
 *       expiry.</li>
 *   <li>A completion, {@link #release} and {@link #renew} succeed only with the current token and a record still
 *       in progress; otherwise they change nothing and report it.</li>
 *   <li>A batch answers exactly as its elements would one by one, in order: a key that appears twice in one claim
 *       batch is claimed twice (the second sees the first).</li>
 *   <li>Deadlines use the store's clock where it has one (Redis {@code TIME}, SQL {@code CURRENT_TIMESTAMP}).</li>
 *   <li>A store that cannot be reached raises {@link StoreUnavailableException}, never a wrong answer.</li>
 * </ul>
 *
 * <p>A store may also offer what only some stores can: {@link TransactionalStore} (the record commits with the
 * handler's own writes) and {@link StoreInspector} (what operators ask), each found by the caller once.
 */
public interface IdempotencyStore extends AutoCloseable {

    /** Claims the keys of {@code requests}, answering for each in order. */
    List<ClaimResult> claim(List<ClaimRequest> requests);

    /**
     * Marks the work of each lease done and stores its result, kept for its retention.
     *
     * @return for each completion, in order, whether it was recorded: false when its lease is no longer current
     *         (taken over, released, completed or expired away)
     */
    List<Boolean> complete(List<Completion> completions);

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

    /** The records of {@code keys} as stored, in order (a released record shows as in progress with a past lease). */
    List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys);

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

    /** Releases what the store holds (connections, threads). Does nothing by default. */
    @Override
    default void close() {
    }
}
