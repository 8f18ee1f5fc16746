package io.github.once.rabbitmq;

import io.github.once.ExecutionContext;
import io.github.once.IdempotencyKey;

/** What a handler knows about the delivery it works on. */
public interface DeliveryContext {

    IdempotencyKey key();

    /** 1 for the first attempt; counts handler failures only (a busy key or a redelivery does not count). */
    int attempt();

    /** The fencing token of this execution's claim; pass it to downstream systems that can check it. */
    long fencingToken();

    /** The broker's redelivered flag: only a hint, every delivery is checked against the store anyway. */
    boolean redelivered();

    /** Whether the claim is still held as far as this process knows. */
    boolean leaseHeld();

    /** A resource of the executor, such as the JDBC {@code Connection} of a transactional executor. */
    <R> R resource(Class<R> type);

    /** The executor's own context. */
    ExecutionContext execution();
}
