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
    MAX_ATTEMPTS("max-attempts");

    private final String code;

    DeadLetterReason(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }
}
