package io.github.once.outbox;

/** How a relay learns that rows were committed. */
public enum Wakeup {
    /** Poll the table every poll interval. */
    POLLING,
    /**
     * On PostgreSQL, also {@code LISTEN} on the table's channel: {@link Outbox} notifies it in the writing
     * transaction, so the relay runs within milliseconds of the commit. Polling continues beside it, as the safety
     * net for missed notifications. Other databases have no such channel and poll only.
     */
    LISTEN_NOTIFY
}
