package io.github.once.rabbitmq;

/** What the consumer did with one delivery. */
public enum ConsumerAction {
    /** The handler ran, its completion was recorded, the delivery was acked. */
    PROCESSED,
    /** The work was done before: acked without running the handler (a stored reply was re-sent if any). */
    DUPLICATE,
    /** Another consumer holds the key: moved to a delay queue, not counted as an attempt. */
    RETRIED_BUSY,
    /** This consumer's claim was taken over while its handler ran: moved to a delay queue, not counted. */
    RETRIED_LEASE_LOST,
    /** The handler failed: moved to a delay queue with the attempt count raised. */
    RETRIED_FAILED,
    /** Moved to the dead-letter queue (missing key, conflict, or attempts exhausted). */
    DEAD_LETTERED,
    /** Given back to the queue unprocessed (the store or the broker was unavailable, or the consumer stopped). */
    REQUEUED,
    /** Not settled by us: its channel closed first, so the broker has already put it back. */
    ABANDONED
}
