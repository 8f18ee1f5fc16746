package io.github.once.cli.demo;

import com.rabbitmq.client.Connection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One consumer "process" of a cell: its own AMQP connection and whatever the style runs on it. The demo's faults
 * act on it: its connection can drop while it keeps working (a partition), or it can die outright.
 */
abstract class ConsumerProcess implements AutoCloseable {

    private final String name;
    private final boolean first;
    private volatile boolean partitioned;
    private volatile boolean dead;

    ConsumerProcess(String name, boolean first) {
        this.name = name;
        this.first = first;
    }

    String name() {
        return name;
    }

    /** The consumer that receives the message first; faults fire there. */
    boolean first() {
        return first;
    }

    abstract Connection connection();

    /** Deliveries this process is still working on (handler running, or for Once, not yet settled). */
    abstract int working();

    /** Deliveries it left unacknowledged after its handler returned, while its channel is open. */
    abstract int holding();

    /** Whether it holds a delivery it has not acked or nacked (the broker requeues those when it goes). */
    abstract boolean holdsUnsettled();

    /** The connection drops; the process keeps running its handler (it only lost the broker). */
    void dropConnection() {
        partitioned = true;
        abortConnection();
    }

    /** The process dies: connection gone, and it does nothing more (see {@link #dieHere()}). */
    void crash() {
        dead = true;
        partitioned = true;
        severStore();
        abortConnection();
    }

    /** Called on the handler thread of a process that just crashed: never returns normally. */
    abstract RuntimeException dieHere();

    /** A dead process cannot reach its idempotency store either. */
    void severStore() {
    }

    boolean partitioned() {
        return partitioned;
    }

    boolean dead() {
        return dead;
    }

    private void abortConnection() {
        // Off the handler thread: closing a connection from its own consumer thread can wait on itself.
        CompletableFuture<Void> abort = CompletableFuture.runAsync(() -> connection().abort(2000));
        try {
            abort.get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            // an abort never throws; a timeout leaves the socket to the client's own timeout
        }
    }

    @Override
    public abstract void close();
}
