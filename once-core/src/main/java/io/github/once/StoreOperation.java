package io.github.once;

/**
 * The store calls an executor makes, as reported to {@link OnceListener#onStoreCall} with the number of keys in
 * the call (a batch claims or completes many keys in one call).
 */
public enum StoreOperation {
    /** Claims one key or a batch of keys. */
    CLAIM,
    /** Records the completions of one key or a batch. */
    COMPLETE,
    /** Gives one key back after a failed handler. */
    RELEASE,
    /** Extends one lease while its handler runs. */
    RENEW
}
