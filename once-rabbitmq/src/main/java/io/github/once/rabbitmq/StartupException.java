package io.github.once.rabbitmq;

import io.github.once.OnceException;

/**
 * A consumer (or its connection) cannot start because the broker is not reachable or not set up as it needs: the
 * message names the broker and says what to change (which queue to declare, which setting to fix).
 */
public class StartupException extends OnceException {
    public StartupException(String message, Throwable cause) {
        super(message, cause);
    }
}
