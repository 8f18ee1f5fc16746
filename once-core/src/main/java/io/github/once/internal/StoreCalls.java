package io.github.once.internal;

import io.github.once.OnceException;
import io.github.once.OnceListener;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.ExecutionScope;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;

/** Times each store call of an executor for its listener, failures included. */
public final class StoreCalls {

    private final SafeListener listener;
    private final CallObserver observer;

    public StoreCalls(SafeListener listener, CallObserver observer) {
        this.listener = listener;
        this.observer = observer;
    }

    /** The executor's listener, for the events that are not store calls. */
    public SafeListener listener() {
        return listener;
    }

    /** One claim through {@code unit}: a batch of one. */
    public ClaimResult claimOne(ExecutionScope.Unit unit, ClaimRequest request) {
        return one(observed(OnceListener.StoreOperation.CLAIM, request.key().namespace(), 1,
                () -> unit.claim(List.of(request))));
    }

    /** One completion through {@code unit}: a batch of one. */
    public boolean completeOne(ExecutionScope.Unit unit, Completion completion) {
        return one(observed(OnceListener.StoreOperation.COMPLETE, completion.lease().key().namespace(), 1,
                () -> unit.complete(List.of(completion))));
    }

    /** The one answer to a batch of one, checked: a store that answers another number breaks the SPI. */
    public static <R> R one(List<R> answers) {
        if (answers.size() != 1) {
            throw new OnceException("store answered " + answers.size() + " times to a call for one key");
        }
        return answers.get(0);
    }

    /** {@link #timed}, observed as {@code once.claim} or {@code once.complete} when the executor is observed. */
    public <R> R observed(OnceListener.StoreOperation operation, String namespace, int keys, Supplier<R> call) {
        return observer.observe(operation, namespace, keys, () -> timed(operation, keys, call));
    }

    public <R> R timed(OnceListener.StoreOperation operation, int keys, Supplier<R> call) {
        long started = System.nanoTime();
        try {
            R result = call.get();
            listener.onStoreCall(operation, keys, Duration.ofNanos(System.nanoTime() - started), null);
            return result;
        } catch (RuntimeException e) {
            listener.onStoreCall(operation, keys, Duration.ofNanos(System.nanoTime() - started), e);
            throw e;
        }
    }
}
