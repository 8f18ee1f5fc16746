package io.github.once;

/** A bounded store refuses a new record rather than forget a completed one inside its retention. */
public class StoreFullException extends OnceException {
    public StoreFullException(String message) {
        super(message);
    }
}
