package io.github.once.cli.ops;

import picocli.CommandLine.Command;

@Command(name = "purge")
public final class PurgeCommand implements Runnable {
    @Override
    public void run() {
    }
}
