package io.github.once.spring.rabbit.internal;

import io.github.once.IdempotencyKey;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spring.rabbit.Once;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.listener.AbstractMessageListenerContainer;

/**
 * Stops the listener containers of a queue while the store is unreachable, and starts them again once a read of
 * the store succeeds: probes start after the first back-off and double up to the longest. Stopping happens on a
 * thread of its own, never on a consumer's (a container waits for its consumers to finish). Like
 * {@code OnceConsumer}'s pause, it reports a pause when it starts and again after every failed probe, with the
 * back-off it waits next, and one resumption.
 */
public final class ContainerPause implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ContainerPause.class);
    private static final IdempotencyKey PROBE = IdempotencyKey.of("once-probe", "store-reachable");
    /** The longest the application's start waits for the store's answer. */
    static final Duration START_CHECK = Duration.ofSeconds(5);

    private final IdempotencyStore store;
    /** Throws while the broker cannot take the moves' copies (a pause for a failed move ends only when it can). */
    private final Runnable brokerCheck;
    private final Duration initial;
    private final Duration max;
    private final Supplier<Collection<AbstractMessageListenerContainer>> containers;
    private final Function<String, QueueEvents> events;
    private final Set<String> paused = ConcurrentHashMap.newKeySet();
    /** Containers kept from starting with the application because the store did not answer then. */
    private final Set<AbstractMessageListenerContainer> heldBack = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "once-container-pause");
        t.setDaemon(true);
        return t;
    });

    public ContainerPause(IdempotencyStore store, Runnable brokerCheck, Duration initial, Duration max,
                   Supplier<Collection<AbstractMessageListenerContainer>> containers,
                   Function<String, QueueEvents> events) {
        this.store = store;
        this.brokerCheck = brokerCheck;
        this.initial = initial;
        this.max = max;
        this.containers = containers;
        this.events = events;
    }

    public boolean isPaused(String queue) {
        return paused.contains(queue);
    }

    /**
     * Before the containers start with the application: when the store does not answer (one read, for at most
     * {@link #START_CHECK}: a pool's own wait for a connection can be much longer), the containers of
     * {@code queues} are kept from starting, and start when a probe succeeds. So a listener takes no delivery
     * before its store can record it, and the application's start waits for the store at most that long.
     */
    public void holdBackIfUnreachable(Collection<String> queues) {
        Throwable down;
        Future<?> read = timer.submit(() -> store.find(List.of(PROBE)));
        try {
            read.get(START_CHECK.toMillis(), TimeUnit.MILLISECONDS);
            return;
        } catch (ExecutionException e) {
            down = e.getCause();
        } catch (TimeoutException e) {
            down = new StoreUnavailableException("the store did not answer within " + START_CHECK + " at start-up");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        for (String queue : queues) {
            if (!paused.add(queue)) {
                continue;
            }
            for (AbstractMessageListenerContainer c : of(queue)) {
                if (c.isAutoStartup() && !c.isRunning()) {
                    c.setAutoStartup(false);
                    heldBack.add(c);
                }
            }
            paused(queue, down);
        }
    }

    /**
     * Stops the containers consuming {@code queue}, once, until the store answers again and the broker can take
     * moved copies: after the store failed, or after a copy for a retry or dead-letter queue was not confirmed (the
     * message then goes back; without the pause it would come straight back to fail again, in a hot loop).
     */
    public void pause(String queue, Throwable cause) {
        if (!paused.add(queue)) {
            return;
        }
        // The queue's processing log says so (paused, reminders, resumed); this is the containers' side.
        log.debug("Once: the store is unreachable ({}); stopping the listener containers of queue {} for {} ms",
                cause.toString(), queue, initial.toMillis());
        timer.execute(() -> {
            for (AbstractMessageListenerContainer c : of(queue)) {
                try {
                    c.stop();
                } catch (RuntimeException e) {
                    log.warn("Once: stopping the container of {} failed", queue, e);
                }
            }
        });
        paused(queue, cause);
    }

    /** The first probe, then the report: the probe is scheduled even when a listener of the report throws. */
    private void paused(String queue, Throwable cause) {
        probeAfter(queue, initial);
        events.apply(queue).paused(cause, initial);
    }

    /**
     * The next probe is scheduled before anything else can throw: a task of the timer that throws ends silently,
     * and without a next probe the queue would stay paused for good.
     */
    private void probeAfter(String queue, Duration backoff) {
        timer.schedule(() -> probe(queue, backoff), backoff.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void probe(String queue, Duration waited) {
        Duration next = waited.multipliedBy(2).compareTo(max) > 0 ? max : waited.multipliedBy(2);
        try {
            store.find(List.of(PROBE));
            brokerCheck.run();
        } catch (RuntimeException e) {
            probeAfter(queue, next);
            log.debug("Once: the store or the broker is still unreachable ({}); next try in {} ms", e.toString(),
                    next.toMillis());
            events.apply(queue).paused(e, next);
            return;
        }
        paused.remove(queue);
        RuntimeException failed = null;
        for (AbstractMessageListenerContainer c : of(queue)) {
            try {
                if (heldBack.remove(c)) {
                    c.setAutoStartup(true); // as it was, for a later restart of the application context
                }
                c.start();
            } catch (RuntimeException e) {
                failed = e;
            }
        }
        if (failed != null) {
            // Stays paused, and tries again: a container that failed to start would otherwise never consume.
            paused.add(queue);
            probeAfter(queue, next);
            log.warn("Once: starting the listener containers of {} failed; next try in {} ms", queue,
                    next.toMillis(), failed);
            return;
        }
        log.debug("Once: the store answers again; the listener containers of queue {} resumed", queue);
        events.apply(queue).resumed();
    }

    private List<AbstractMessageListenerContainer> of(String queue) {
        return containers.get().stream().filter(c -> List.of(c.getQueueNames()).contains(queue)).toList();
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
