package io.github.once.spi;

import io.github.once.OnceException;

/**
 * A unit of work lost a race with other work (a deadlock, a serialization failure) and was rolled back by the
 * store: nothing of it took effect. The executor runs a lost batch again task by task; for a single task it is the
 * caller's failure to retry.
 */
public class UnitLostException extends OnceException {
    public UnitLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
