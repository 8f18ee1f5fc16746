package io.github.once.rabbitmq;

import io.github.once.ExecutionContext;

/**
 * What a handler knows about the delivery it works on: the execution ({@link #key()}, {@link #fencingToken()},
 * {@link #leaseHeld()}, {@link #resource(Class)}) and the delivery's attempt and redelivered flag.
 */
public interface DeliveryContext extends ExecutionContext {

    /** 1 for the first attempt; counts handler failures only (a busy key or a redelivery does not count). */
    int attempt();

    /** The broker's redelivered flag: only a hint, every delivery is checked against the store anyway. */
    boolean redelivered();

    /** The executor's own context. */
    ExecutionContext execution();
}
