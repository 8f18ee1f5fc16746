package io.github.once;

/** The store calls an executor makes, as reported to {@link OnceListener#onStoreCall}. */
public enum StoreOperation {
    CLAIM, CLAIM_ALL, COMPLETE, COMPLETE_ALL, RELEASE, RENEW
}
