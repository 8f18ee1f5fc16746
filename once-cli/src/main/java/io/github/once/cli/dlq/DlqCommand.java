package io.github.once.cli.dlq;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code once dlq}: the dead letters of a work queue. */
@Command(name = "dlq", mixinStandardHelpOptions = true,
        description = "Lists a work queue's dead letters with why they were dead-lettered, and moves chosen ones "
                + "back to the work queue.",
        subcommands = {DlqListCommand.class, DlqMoveCommand.class})
public final class DlqCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: list or move");
    }
}
