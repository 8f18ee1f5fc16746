package io.github.once.cli.demo;

import java.io.PrintWriter;
import java.util.function.IntConsumer;

/** A one-line progress bar on the terminal's error stream; silent when output is not a terminal. */
final class ProgressBar implements IntConsumer {
    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final int total;

    ProgressBar(PrintWriter err, int total) {
        this.err = err;
        this.total = total;
    }

    @Override
    public synchronized void accept(int done) {
        int filled = total == 0 ? WIDTH : done * WIDTH / total;
        err.print("\r[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "] " + done + "/" + total + " cells");
        if (done >= total) {
            err.print("\r" + " ".repeat(WIDTH + 20) + "\r");
        }
        err.flush();
    }
}
