package io.github.once;

import java.util.ArrayList;
import java.util.List;

/**
 * Runs handlers at most once per key to completion. {@link Idempotency} records the work in a separate step by
 * default, or, with once-jdbc's transactional scope, commits the record with the handler's own writes. Adapters
 * depend on this interface only, never on a particular store.
 */
public interface IdempotentExecutor extends AutoCloseable {

    /**
     * Runs one task.
     *
     * @throws StoreUnavailableException when the store cannot be reached before or after the handler; the
     *                                   message must then be neither acknowledged nor dropped
     */
    <T> Outcome<T> execute(Task<T> task);

    default <T> Outcome<T> execute(IdempotencyKey key, byte[] payload, ResultCodec<T> codec, Handler<T> handler) {
        return execute(new Task<>(key, payload, codec, handler));
    }

    /**
     * Runs several tasks; executors that can claim (or commit) them together do so. The outcomes are in the
     * order of the tasks.
     */
    default <T> List<Outcome<T>> executeAll(List<Task<T>> tasks) {
        List<Outcome<T>> outcomes = new ArrayList<>(tasks.size());
        for (Task<T> task : tasks) {
            outcomes.add(execute(task));
        }
        return outcomes;
    }

    /**
     * A hint that tasks with {@code keys} are likely to come soon, such as a consumer's deliveries, each as it
     * arrives: an executor whose store reads before it claims (a tiered store) may start reading now. It never
     * changes an outcome, returns at once (it may be called from a client library's dispatch thread), and does
     * nothing by default.
     */
    default void lookAhead(List<IdempotencyKey> keys) {
    }

    @Override
    default void close() {
    }
}
