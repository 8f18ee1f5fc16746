package io.github.once.jdbc;

import io.github.once.StoreUnavailableException;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The store's own few threads for {@code claimAllAsync} and {@code completeAllAsync}. JDBC has no non-blocking
 * API: a call holds a thread until the database answers. Running such calls here keeps the caller's thread free
 * (a pipelined consumer claims the next deliveries while handlers run) and bounds how many connections they take
 * at once, one per thread, each call on a connection of its own from the data source. Threads start on demand
 * and stop after a minute idle. Calls wait in an unbounded queue: the caller bounds how many it has in flight.
 */
final class AsyncCalls implements AutoCloseable {

    private final ThreadPoolExecutor executor;
    private final String name;
    private final Duration closeWait;

    AsyncCalls(int threads, String name, Duration closeWait) {
        this.name = name;
        this.closeWait = closeWait;
        AtomicInteger count = new AtomicInteger();
        ThreadFactory factory = task -> {
            Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
            thread.setDaemon(true); // never keeps a JVM alive that forgot to close the store
            return thread;
        };
        this.executor = new ThreadPoolExecutor(threads, threads, 1, TimeUnit.MINUTES, new LinkedBlockingQueue<>(),
                factory);
        executor.allowCoreThreadTimeOut(true);
    }

    /**
     * Runs {@code call} on one of the threads. The stage completes with its answer, or exceptionally with exactly
     * what it threw (not wrapped), as the default {@code claimAllAsync} does.
     */
    <R> CompletionStage<R> submit(Supplier<R> call) {
        Call<R> task = new Call<>(call);
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            task.abandon(e);
        }
        return task.future;
    }

    /**
     * Lets queued and running calls finish for a while, then interrupts what still runs; calls that never started
     * complete with {@link StoreUnavailableException}, as do calls made after this.
     */
    @Override
    public void close() {
        executor.shutdown();
        try {
            executor.awaitTermination(closeWait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<Runnable> never = executor.shutdownNow();
        for (Runnable task : never) {
            ((Call<?>) task).abandon(null);
        }
    }

    private final class Call<R> implements Runnable {
        final CompletableFuture<R> future = new CompletableFuture<>();
        private final Supplier<R> call;

        Call(Supplier<R> call) {
            this.call = call;
        }

        @Override
        public void run() {
            try {
                future.complete(call.get());
            } catch (RuntimeException | Error e) {
                future.completeExceptionally(e);
            }
        }

        void abandon(Throwable cause) {
            future.completeExceptionally(new StoreUnavailableException(name + " is closed: the call did not run",
                    cause));
        }
    }
}
