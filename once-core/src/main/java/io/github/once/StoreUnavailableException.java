package io.github.once;

/**
 * The store could not be reached or did not answer in time. Nothing can be concluded about the
 * record: callers must neither run the handler unguarded nor acknowledge the message.
 */
public class StoreUnavailableException extends OnceException {
    public StoreUnavailableException(String message) {
        super(message);
    }

    public StoreUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
