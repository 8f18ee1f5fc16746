package io.github.once.chaos;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Everything the harness started, stopped in reverse order exactly once: at the end of a run, when it fails, and
 * from a shutdown hook when the JVM is stopped.
 */
final class Teardown implements AutoCloseable {

    private final Deque<Step> steps = new ArrayDeque<>();
    private final Thread hook = new Thread(this::close, "once-chaos-teardown");

    private record Step(String what, AutoCloseable action) {
    }

    Teardown() {
        Runtime.getRuntime().addShutdownHook(hook);
    }

    synchronized void add(String what, AutoCloseable action) {
        steps.push(new Step(what, action));
    }

    @Override
    public synchronized void close() {
        while (!steps.isEmpty()) {
            Step step = steps.pop();
            try {
                step.action().close();
            } catch (Exception e) {
                System.err.println("teardown: could not " + step.what() + ": " + e);
            }
        }
        if (Thread.currentThread() != hook) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException alreadyShuttingDown) {
                // the hook runs (or ran) this anyway
            }
        }
    }
}
