package io.github.once.bench.e2e;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/** Samples used heap every few milliseconds while a run consumes, and keeps the peak. */
final class HeapSampler implements AutoCloseable {

    private static final long PERIOD_MILLIS = 5;

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    private final Thread thread;
    private volatile boolean running = true;
    private volatile long peak;

    HeapSampler() {
        thread = new Thread(this::sample, "heap-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void sample() {
        while (running) {
            peak = Math.max(peak, memory.getHeapMemoryUsage().getUsed());
            try {
                Thread.sleep(PERIOD_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    long peakBytes() {
        return Math.max(peak, memory.getHeapMemoryUsage().getUsed());
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
