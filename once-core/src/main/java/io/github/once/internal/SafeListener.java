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
        try {
            delegate.onOutcome(outcome, elapsed);
        } catch (RuntimeException e) {
            log.warn("Listener failed on an outcome; ignored", e);
        }
    }

    @Override
    public void onStoreCall(StoreOperation operation, int keys, Duration elapsed, Throwable failure) {
        try {
            delegate.onStoreCall(operation, keys, elapsed, failure);
        } catch (RuntimeException e) {
            log.warn("Listener failed on a store call; ignored", e);
        }
    }

    @Override
    public void onHandler(IdempotencyKey key, Duration elapsed, Throwable failure) {
        try {
            delegate.onHandler(key, elapsed, failure);
        } catch (RuntimeException e) {
            log.warn("Listener failed on a handler's end; ignored", e);
        }
    }

    @Override
    public void onTakeover(Lease lease) {
        try {
            delegate.onTakeover(lease);
        } catch (RuntimeException e) {
            log.warn("Listener failed on a takeover; ignored", e);
        }
    }

    @Override
    public void onRenewal(Lease lease, boolean renewed, Throwable failure) {
        try {
            delegate.onRenewal(lease, renewed, failure);
        } catch (RuntimeException e) {
            log.warn("Listener failed on a renewal; ignored", e);
        }
    }
}
