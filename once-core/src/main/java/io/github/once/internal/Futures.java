package io.github.once.internal;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What asynchronous calls share: the failure a stage reports, as the synchronous call would have thrown it. */
public final class Futures {

    private Futures() {
    }

    /** The failure inside the {@link CompletionException}s and {@link ExecutionException}s futures wrap it in. */
    public static Throwable unwrapped(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
