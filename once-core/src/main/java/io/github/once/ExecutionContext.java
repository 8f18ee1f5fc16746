package io.github.once;

import java.util.concurrent.Callable;
import io.github.once.internal.OperationKeys;

/** What a handler knows about the execution it runs in. */
public interface ExecutionContext {

    IdempotencyKey key();

    /** The fencing token of this execution's lease; pass it to downstream systems that can check it. */
    long fencingToken();

    /** Whether the lease is still held as far as this process knows (renewal has not been refused). */
    boolean leaseHeld();

    /**
     * A resource of the execution's scope, such as the JDBC {@code java.sql.Connection} of once-jdbc's
     * transactional scope.
     *
     * @throws IllegalStateException when this execution provides no such resource
     */
    <R> R resource(Class<R> type);

    /**
     * Runs {@code step} at most once per message key and step name, and returns its result: the first time it is
     * run and its result recorded under the step's own key ({@link IdempotencyKey#forStep(String)}), in the same
     * store; every later call with the same name, in this attempt or a retry of the message, returns the stored
     * result without running it. Give every sub-operation its own name, such as {@code "deduct-stock:" + sku}.
     *
     * <p>In the default scope the step's record is written as soon as the step returns, so when a later step
     * fails and the message is retried, the steps already done are skipped. In a transactional scope (once-jdbc)
     * the step's record is written on the message's connection: it commits or rolls back with the message and
     * the step's own writes. A step that throws is undone (in a transaction, back to its savepoint) and its key
     * released; the exception is rethrown as it is.
     *
     * @throws StepBusyException when another execution of this message is running the same step right now
     * @throws UnsupportedOperationException when this context runs no steps
     */
    default <T> T step(String name, ResultCodec<T> codec, Callable<T> step) throws Exception {
        throw new UnsupportedOperationException("this execution context runs no steps; use Idempotency's handlers");
    }

    /** {@link #step(String, ResultCodec, Callable)} for a step whose result is text (UTF-8). */
    default String step(String name, Callable<String> step) throws Exception {
        return step(name, ResultCodec.utf8(), step);
    }

    /**
     * A stable idempotency key for an external API, such as the {@code Idempotency-Key} header of a payment
     * service: the same for every attempt of this message, different for every name and every message. It is
     * {@code <namespace>:<id>:<name>} when the id and the name are at most 200 characters in all of
     * {@code [A-Za-z0-9._~-]}, and {@code <namespace>:sha256-<64 hex digits>} (a digest of the id and the name)
     * otherwise, so it is always a safe HTTP header value of at most 200 characters.
     */
    default String operationKey(String name) {
        return OperationKeys.of(key(), name);
    }

}
