package io.github.once.cli.ops;

import picocli.CommandLine.Command;

@Command(name = "stats")
public final class StatsCommand implements Runnable {
    @Override
    public void run() {
    }
}
