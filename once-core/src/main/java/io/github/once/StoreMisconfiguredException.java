package io.github.once;

/**
 * The store answers, but cannot do its job until someone changes something: the record table or a column is
 * missing, the user lacks a permission, credentials are refused, a script cannot be loaded. Waiting does not heal
 * it, so the message says what to fix (which script to run, which setting to change). A consumer still pauses on
 * it, as for {@link StoreUnavailableException}: nothing runs unguarded and nothing is acknowledged.
 */
public class StoreMisconfiguredException extends OnceException {
    public StoreMisconfiguredException(String message) {
        super(message);
    }

    public StoreMisconfiguredException(String message, Throwable cause) {
        super(message, cause);
    }
}
