package io.github.once.rabbitmq;

import io.github.once.ExecutionContext;
import io.github.once.IdempotencyKey;
import io.github.once.ResultCodec;

import java.util.concurrent.Callable;

/**
 * What a handler knows about the delivery it works on: the execution ({@link #key()}, {@link #fencingToken()},
 * {@link #leaseHeld()}, {@link #resource(Class)}, {@link #step(String, ResultCodec, Callable)} and
 * {@link #operationKey(String)}, all answered by {@link #execution()}) and the delivery's attempt and redelivered
 * flag.
 */
public interface DeliveryContext extends ExecutionContext {

    /** 1 for the first attempt; counts handler failures only (a busy key or a redelivery does not count). */
    int attempt();

    /** The broker's redelivered flag: only a hint, every delivery is checked against the store anyway. */
    boolean redelivered();

    /** The executor's own context. */
    ExecutionContext execution();

    @Override
    default IdempotencyKey key() {
        return execution().key();
    }

    @Override
    default long fencingToken() {
        return execution().fencingToken();
    }

    @Override
    default boolean leaseHeld() {
        return execution().leaseHeld();
    }

    @Override
    default <R> R resource(Class<R> type) {
        return execution().resource(type);
    }

    // Steps are the executor's: without these the interface's defaults would refuse them in consumer handlers.
    @Override
    default <T> T step(String name, ResultCodec<T> codec, Callable<T> step) throws Exception {
        return execution().step(name, codec, step);
    }

    @Override
    default String operationKey(String name) {
        return execution().operationKey(name);
    }
}
