package io.github.once.internal;

import io.github.once.IdempotencyKey;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.StoreOperation;
import io.github.once.spi.Lease;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Shields executors from a listener that throws: metrics must never change what happens to a message. */
public final class SafeListener implements OnceListener {
    private static final Logger log = LoggerFactory.getLogger(SafeListener.class);

    private final OnceListener delegate;

    public SafeListener(OnceListener delegate) {
        this.delegate = delegate;
    }

    @Override
    public void onOutcome(Outcome<?> outcome, Duration elapsed) {
        quietly("an outcome", () -> delegate.onOutcome(outcome, elapsed));
    }

    @Override
    public void onStoreCall(StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
        quietly("a store call", () -> delegate.onStoreCall(operation, keys, elapsed, failure));
    }

    @Override
    public void onHandler(IdempotencyKey key, Duration elapsed, Throwable failure) {
        quietly("a handler's end", () -> delegate.onHandler(key, elapsed, failure));
    }

    @Override
    public void onTakeover(Lease lease) {
        quietly("a takeover", () -> delegate.onTakeover(lease));
    }

    @Override
    public void onRenewal(Lease lease, boolean renewed, Throwable failure) {
        quietly("a renewal", () -> delegate.onRenewal(lease, renewed, failure));
    }

    private static void quietly(String event, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            log.warn("Listener failed on {}; ignored", event, e);
        }
    }
}
