package io.github.once.spring.boot;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.Lease;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * The application's store (the one the starter built), seen by the scenario tests: what each key's claims
 * answered, a step to take right after a key's record is completed (before the container acks), how many
 * completions failed, and a kill switch after which every call fails as if this process had died.
 */
final class ScenarioStore implements IdempotencyStore {
    private final IdempotencyStore store;
    private final Map<IdempotencyKey, List<ClaimResult>> claims = new ConcurrentHashMap<>();
    private final Map<IdempotencyKey, Runnable> afterComplete = new ConcurrentHashMap<>();
    private final AtomicInteger failedCompletions = new AtomicInteger();
    private volatile boolean dead;

    private ScenarioStore(IdempotencyStore store) {
        this.store = store;
    }

    /** Wraps the starter's store bean in every context that registers it. */
    static BeanPostProcessor wrapping() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String name) {
                return bean instanceof IdempotencyStore s && !(bean instanceof ScenarioStore) ? new ScenarioStore(s) : bean;
            }
        };
    }

    /** What the claims of {@code key} answered, in order. */
    List<ClaimResult> claims(IdempotencyKey key) {
        return claims.getOrDefault(key, List.of());
    }

    /** Runs {@code step} on the listener's thread right after the record of {@code key} is completed. */
    void afterComplete(IdempotencyKey key, Runnable step) {
        afterComplete.put(key, step);
    }

    int failedCompletions() {
        return failedCompletions.get();
    }

    /** From now on every call fails: this process is dead to the store (no renewal, no completion). */
    void kill() {
        dead = true;
    }

    private void alive() {
        if (dead) {
            throw new StoreUnavailableException("this process is dead");
        }
    }

    private void seen(IdempotencyKey key, ClaimResult result) {
        claims.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(result);
    }

    @Override
    public List<ClaimResult> claim(List<ClaimRequest> requests) {
        alive();
        List<ClaimResult> results = store.claim(requests);
        for (int i = 0; i < requests.size(); i++) {
            seen(requests.get(i).key(), results.get(i));
        }
        return results;
    }

    @Override
    public List<Boolean> complete(List<Completion> completions) {
        alive();
        List<Boolean> done;
        try {
            done = store.complete(completions);
        } catch (RuntimeException e) {
            failedCompletions.incrementAndGet();
            throw e;
        }
        for (int i = 0; i < completions.size(); i++) {
            Runnable step = afterComplete.remove(completions.get(i).lease().key());
            if (done.get(i) && step != null) {
                step.run();
            }
        }
        return done;
    }

    @Override
    public boolean release(Lease lease) {
        alive();
        return store.release(lease);
    }

    @Override
    public Optional<Lease> renew(Lease lease, Duration leaseDuration) {
        alive();
        return store.renew(lease, leaseDuration);
    }

    @Override
    public List<Optional<IdempotencyRecord>> find(List<IdempotencyKey> keys) {
        alive();
        return store.find(keys);
    }

    @Override
    public void verify() {
        alive();
        store.verify();
    }

    @Override
    public void close() {
        store.close();
    }
}
