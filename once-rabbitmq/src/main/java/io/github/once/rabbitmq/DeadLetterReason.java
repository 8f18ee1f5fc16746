package io.github.once.rabbitmq;

/** Why a message went to the dead-letter queue; the code is the value of {@link OnceHeaders#REASON}. */
public enum DeadLetterReason {
    /** No idempotency key could be extracted: the message cannot be guarded, so it is never processed. */
    MISSING_KEY("missing-key"),
    /** The key was extracted but is not usable (for example a namespace that breaks the key rules). */
    INVALID_KEY("invalid-key"),
    /** The key is known with another payload: the ID was reused for different content. */
    CONFLICT("conflict"),
    /** The handler failed on every allowed attempt. */
    MAX_ATTEMPTS("max-attempts"),
    /**
     * The message killed the processes that handled it: its key's lease was taken over from dead owners
     * {@code crashLoopAfter} times in a row (or, on a quorum queue, it came back too often), so it is not run again.
     */
    CRASH_LOOP("crash-loop"),
    /** The store refused this message's record (a result over the size limit, a constraint or data error). */
    STORE_REJECTED("store-rejected");

    private final String code;

    DeadLetterReason(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }
}
