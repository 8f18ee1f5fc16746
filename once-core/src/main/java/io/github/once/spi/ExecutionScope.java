package io.github.once.spi;

import io.github.once.OnceException;

import java.util.List;

/**
 * Where the executor's steps run. {@link io.github.once.Idempotency} runs one algorithm for every mode (claim, run
 * the handler, record the completion or give the key back; batches alike) and asks its scope for a {@link Unit} of
 * work around each task or batch. The default scope makes every step a store call of its own and keeps a claimed
 * lease alive by renewal while the handler runs; once-jdbc's transactional scope runs claim, handler and completion
 * in one database transaction, so the handler's writes commit with the record.
 *
 * <p>A scope decides how steps are carried out, never what an answer means: mapping claim results to outcomes,
 * handler and codec failures, timing and reporting stay in the executor.
 */
public interface ExecutionScope {

    /** The store this scope records in; an executor accepts only a scope over its own store. */
    IdempotencyStore store();

    /** Opens the unit of work for one task or one batch. The executor closes it. */
    Unit begin();

    /**
     * One task's or one batch's steps. The executor calls {@link #commit()} once everything it keeps is written,
     * or {@link #rollback()}; {@link #close()} always comes last.
     */
    interface Unit extends AutoCloseable {

        /**
         * Claims the keys of a batch, all different, answering as single claims in order would. A batch of one in
         * a unit that has done nothing yet may answer a lost race on its own (trying again, or answering from what
         * is committed), as {@link IdempotencyStore#claim} does.
         *
         * @throws UnitLostException when the claims lost a race this unit cannot answer
         */
        List<ClaimResult> claim(List<ClaimRequest> requests);

        /**
         * Whether a lease acquired here must be renewed (through the store) while its handler runs. False when
         * the unit holds the claimed record locked until it ends, which keeps the key without renewal.
         */
        boolean renewsLeases();

        /**
         * Whether {@link #rollback()} undoes the handlers' effects and the claims of this unit. The executor then
         * runs handlers without a {@link #mark()} and, when one fails, rolls the unit back and runs the others
         * again in a new one. When false, every failed handler is dealt with on its own: its mark is undone and
         * its lease released.
         */
        boolean atomic();

        /** A resource for the handlers of this unit (such as a JDBC connection), or null when it has none. */
        <R> R resource(Class<R> type);

        /** Marks where a handler's effect begins, so that that effect alone can be undone (a savepoint). */
        Mark mark();

        /** Records completions of different keys, answering as single completions in order would. */
        List<Boolean> complete(List<Completion> completions);

        /** Gives a claimed key back so that a redelivery can claim it at once. */
        boolean release(Lease lease);

        /** Keeps everything this unit wrote. */
        void commit();

        /** Undoes what {@link #atomic()} says this unit can undo; a unit that can undo nothing does nothing. */
        void rollback();

        /** Ends the unit; what was neither committed nor rolled back is rolled back. */
        @Override
        void close();
    }

    /** The start of one handler's effect inside a unit. */
    interface Mark {
        /** The handler succeeded: its effect stays with the unit. */
        void keep();

        /** The handler failed: its effect is undone, the rest of the unit stays. */
        void undo();
    }

    /**
     * A unit of work lost a race with other work (a deadlock, a serialization failure) and was rolled back by the
     * store: nothing of it took effect. The executor runs a lost batch again task by task; for a single task it is the
     * caller's failure to retry.
     */
    class UnitLostException extends OnceException {
        public UnitLostException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
