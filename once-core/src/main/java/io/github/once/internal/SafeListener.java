package io.github.once.internal;

import io.github.once.IdempotencyKey;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The listeners of an executor, each called in turn, shielded from one that throws: metrics must never change
 * what happens to a message, and one failing listener must not keep the others from hearing the event.
 */
public final class SafeListener implements OnceListener {
    private static final Logger log = LoggerFactory.getLogger(SafeListener.class);

    private final List<OnceListener> listeners;

    public SafeListener(List<OnceListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    @Override
    public void onOutcome(Outcome<?> outcome, Duration elapsed) {
        each("an outcome", l -> l.onOutcome(outcome, elapsed));
    }

    @Override
    public void onStoreCall(OnceListener.StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
        each("a store call", l -> l.onStoreCall(operation, keys, elapsed, failure));
    }

    @Override
    public void onHandler(IdempotencyKey key, Duration elapsed, Throwable failure) {
        each("a handler's end", l -> l.onHandler(key, elapsed, failure));
    }

    @Override
    public void onTakeover(Lease lease) {
        each("a takeover", l -> l.onTakeover(lease));
    }

    @Override
    public void onRenewal(Lease lease, boolean renewed, Throwable failure) {
        each("a renewal", l -> l.onRenewal(lease, renewed, failure));
    }

    private void each(String event, Consumer<OnceListener> call) {
        for (OnceListener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                log.warn("Listener {} failed on {}; ignored", listener, event, e);
            }
        }
    }
}
