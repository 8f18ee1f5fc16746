package io.github.once.jdbc;

import io.github.once.OnceException;

/** The database was reached but holds no Once records table by that name (or one without its columns). */
public final class MissingTableException extends OnceException {
    public MissingTableException(String message, Throwable cause) {
        super(message, cause);
    }
}
