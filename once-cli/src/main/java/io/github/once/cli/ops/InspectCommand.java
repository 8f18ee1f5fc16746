package io.github.once.cli.ops;

import picocli.CommandLine.Command;

@Command(name = "inspect")
public final class InspectCommand implements Runnable {
    @Override
    public void run() {
    }
}
