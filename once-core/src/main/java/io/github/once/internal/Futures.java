package io.github.once.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
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

    /**
     * A stage that completes as {@code stage} does, but with a failure itself rather than wrapped in the
     * {@link CompletionException} that dependent stages put around it: callers see what the synchronous call throws.
     */
    public static <T> CompletableFuture<T> settled(CompletionStage<T> stage) {
        CompletableFuture<T> settled = new CompletableFuture<>();
        stage.whenComplete((value, failure) -> {
            if (failure == null) {
                settled.complete(value);
            } else {
                settled.completeExceptionally(unwrapped(failure));
            }
        });
        return settled;
    }
}
