package io.github.once.internal;

import io.github.once.OnceListener;

import java.util.function.Supplier;

/**
 * Observes an executor's claim and completion calls ({@code once.claim}, {@code once.complete}) when it has an
 * observation registry; {@link #NONE} otherwise, which only makes the call (and loads no Micrometer class).
 */
public interface CallObserver {

    CallObserver NONE = new CallObserver() {
        @Override
        public <R> R observe(OnceListener.StoreOperation operation, String namespace, int keys, Supplier<R> call) {
            return call.get();
        }
    };

    /** Makes {@code call}, the {@code operation} for {@code keys} keys of {@code namespace}. */
    <R> R observe(OnceListener.StoreOperation operation, String namespace, int keys, Supplier<R> call);
}
