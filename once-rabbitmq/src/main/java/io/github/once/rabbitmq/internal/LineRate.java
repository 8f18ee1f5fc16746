package io.github.once.rabbitmq.internal;

import java.time.Duration;

/**
 * A budget of log lines per window, so a failure on every message cannot flood the log: past the budget lines are
 * counted instead, and the next line let through reports how many were left out.
 */
public final class LineRate {
    private final int lines;
    private final long windowNanos;
    private long windowStart;
    private boolean started;
    private int used;
    private long suppressed;

    public LineRate(int lines, Duration per) {
        this.lines = lines;
        this.windowNanos = per.toNanos();
    }

    /**
     * Asks for one line at {@code now} (System.nanoTime): -1 when it is to be left out, else how many were left out
     * since the last line let through.
     */
    public synchronized long admit(long now) {
        if (!started || now - windowStart >= windowNanos) {
            started = true;
            windowStart = now;
            used = 0;
        }
        if (used >= lines) {
            suppressed++;
            return -1;
        }
        used++;
        long left = suppressed;
        suppressed = 0;
        return left;
    }

    /** How many were left out since the last line let through, now reported elsewhere (a summary line). */
    public synchronized long takeSuppressed() {
        long left = suppressed;
        suppressed = 0;
        return left;
    }
}
