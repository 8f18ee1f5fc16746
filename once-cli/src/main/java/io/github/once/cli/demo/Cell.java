package io.github.once.cli.demo;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One cell of the matrix: one consumer style facing one fault, on a queue and namespace of its own. Holds the
 * business work (the same for every style) with the fault wired into it, and what the styles report.
 */
final class Cell {

    /** How long a fault waits for the other consumer to reach the point the fault is about (a bound, not a pause). */
    static final long SIGNAL_WAIT_MS = 10_000;

    private final String id;
    private final Scenario scenario;
    private final String queue;
    private final ConnectionFactory amqp;
    private final ExecutorService consumerThreads;
    private final EffectSink effects;
    private final List<ConsumerProcess> processes = new CopyOnWriteArrayList<>();
    private final Map<CellEvent, AtomicInteger> events = new EnumMap<>(CellEvent.class);
    private final Map<String, AtomicInteger> deliveriesPerOrder = new ConcurrentHashMap<>();
    private final AtomicBoolean faultFired = new AtomicBoolean();
    private final CountDownLatch faultDone = new CountDownLatch(1);
    private final CountDownLatch secondDecided = new CountDownLatch(1);
    private final CountDownLatch firstReturned = new CountDownLatch(1);

    Cell(String id, Scenario scenario, String queue, ConnectionFactory amqp, ExecutorService consumerThreads,
            EffectSink effects) {
        this.id = id;
        this.scenario = scenario;
        this.queue = queue;
        this.amqp = amqp;
        this.consumerThreads = consumerThreads;
        this.effects = effects;
        for (CellEvent e : CellEvent.values()) {
            events.put(e, new AtomicInteger());
        }
    }

    String id() {
        return id;
    }

    Scenario scenario() {
        return scenario;
    }

    String queue() {
        return queue;
    }

    /** The id of the cell of {@code scenario} in row {@code row} of run {@code runId}: also its key namespace. */
    static String id(String runId, int row, Scenario scenario) {
        return runId + ".r" + row + "." + scenario.code();
    }

    /** A namespace for this cell's keys: fresh per run, so runs never see each other's records. */
    String namespace() {
        return id;
    }

    EffectSink effects() {
        return effects;
    }

    List<ConsumerProcess> processes() {
        return processes;
    }

    Connection newConnection(String name) throws Exception {
        return amqp.newConnection(consumerThreads, "once-demo-" + id + "-" + name);
    }

    void register(ConsumerProcess process) {
        processes.add(process);
    }

    void note(CellEvent event) {
        events.get(event).incrementAndGet();
    }

    int count(CellEvent event) {
        return events.get(event).get();
    }

    /** Counts a delivery of {@code orderId} (a loop shows as many). */
    void delivered(byte[] body) {
        String order = Order.orderId(body).orElse("?");
        deliveriesPerOrder.computeIfAbsent(order, k -> new AtomicInteger()).incrementAndGet();
    }

    int maxDeliveries() {
        return deliveriesPerOrder.values().stream().mapToInt(AtomicInteger::get).max().orElse(0);
    }

    int totalDeliveries() {
        return deliveriesPerOrder.values().stream().mapToInt(AtomicInteger::get).sum();
    }

    /**
     * The business work every style runs: deduct the order's stock once. The cell's fault fires on the first
     * consumer's first delivery.
     */
    void work(ConsumerProcess self, String orderId, Object transaction) throws Exception {
        if (scenario == Scenario.POISON) {
            throw new IllegalStateException("order " + orderId + " cannot be processed (poison message)");
        }
        if (!self.first() || !faultFired.compareAndSet(false, true)) {
            effects.apply(orderId, transaction);
            return;
        }
        switch (scenario) {
            case CRASH_MID_WORK -> {
                self.crash();
                faultDone.countDown();
                throw self.dieHere();
            }
            case ACK_LOST -> {
                effects.apply(orderId, transaction);
                self.dropConnection();
                faultDone.countDown();
            }
            case CONCURRENT_REDELIVERY -> {
                // A delivery this consumer already acked is not redelivered: then there is nothing to wait for.
                boolean redelivery = self.holdsUnsettled();
                self.dropConnection();
                faultDone.countDown();
                if (redelivery) {
                    // Keep working while the broker hands the message to the second consumer, as a cut-off node does.
                    await(secondDecided);
                }
                effects.apply(orderId, transaction);
            }
            default -> effects.apply(orderId, transaction);
        }
    }

    /** Whether the fault has happened (the point where a second consumer may start). */
    boolean awaitFault(long millis) throws InterruptedException {
        return faultDone.await(millis, TimeUnit.MILLISECONDS);
    }

    /** The second consumer reached its decision on the redelivered message (checked it, or was refused it). */
    void secondDecided(ConsumerProcess self) {
        if (!self.first()) {
            secondDecided.countDown();
        }
    }

    /** The first consumer's handler returned (for the check-then-lock race). */
    void handlerReturned(ConsumerProcess self) {
        if (self.first() && faultFired.get()) {
            firstReturned.countDown();
        }
    }

    /**
     * Between the check-then-lock guard's two steps on the second consumer: in the concurrent scenario the gap
     * stays open until the first consumer finished (a GC pause or a slow round trip would do the same).
     */
    void betweenCheckAndLock(ConsumerProcess self) throws InterruptedException {
        if (scenario == Scenario.CONCURRENT_REDELIVERY && !self.first()) {
            await(firstReturned);
        }
    }

    private static void await(CountDownLatch latch) throws InterruptedException {
        latch.await(SIGNAL_WAIT_MS, TimeUnit.MILLISECONDS);
    }
}
