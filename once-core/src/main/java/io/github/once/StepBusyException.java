package io.github.once;

import java.time.Instant;

/**
 * A step's key is held by another execution of the same message (one whose lease on the message lapsed while its
 * step still ran). The handler fails, so the message is retried later, when that step is done or its lease lapsed.
 */
public class StepBusyException extends OnceException {

    private final IdempotencyKey key;
    private final Instant leaseUntil;

    public StepBusyException(IdempotencyKey key, Instant leaseUntil) {
        super("step " + key + " is running elsewhere until " + leaseUntil);
        this.key = key;
        this.leaseUntil = leaseUntil;
    }

    public IdempotencyKey key() {
        return key;
    }

    public Instant leaseUntil() {
        return leaseUntil;
    }
}
