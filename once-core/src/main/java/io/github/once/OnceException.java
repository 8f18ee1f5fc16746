package io.github.once;

/** Root of every real failure Once raises. Expected answers (busy, duplicate, conflict) are values, not exceptions. */
public class OnceException extends RuntimeException {
    public OnceException(String message) {
        super(message);
    }

    public OnceException(String message, Throwable cause) {
        super(message, cause);
    }
}
