package io.github.once;

/**
 * The store refused this one record: a value it cannot hold (a result over the executor's
 * {@link IdempotencyConfig#maxResultBytes() limit}, a value too long for its column), or a constraint or data
 * error on the record's own statement. Unlike {@link StoreUnavailableException} the same record fails the same
 * way on every attempt, so the message carrying it is dead-lettered rather than retried, and other records go on.
 */
public class StoreRejectedException extends OnceException {

    private final transient IdempotencyKey key;

    public StoreRejectedException(String message, IdempotencyKey key, Throwable cause) {
        super(message, cause);
        this.key = key;
    }

    public StoreRejectedException(String message, IdempotencyKey key) {
        this(message, key, null);
    }

    /** The key whose record was refused, or null when the store could not tell which one of a batch. */
    public IdempotencyKey key() {
        return key;
    }
}
