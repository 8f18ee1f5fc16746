package io.github.once.cli;

import io.github.once.cli.demo.DemoCommand;
import io.github.once.cli.dlq.DlqCommand;
import io.github.once.cli.ops.InspectCommand;
import io.github.once.cli.ops.PurgeCommand;
import io.github.once.cli.ops.StatsCommand;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code once} command: the trap-matrix demo, and the operating commands for real stores. */
@Command(name = "once",
        mixinStandardHelpOptions = true,
        versionProvider = OnceCommand.Version.class,
        description = "Exactly-once effects for RabbitMQ consumers: see the traps, and operate the stores.",
        subcommands = {DemoCommand.class, InspectCommand.class, StatsCommand.class, PurgeCommand.class, DlqCommand.class,
                CommandLine.HelpCommand.class},
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {
                "0:done (demo: every Once row had no duplicate and no lost effect)",
                "1:demo: a Once row showed a duplicate or a lost effect; inspect: no record; dlq move: a message id not found",
                "2:bad arguments",
                "3:a broker or store could not be reached",
                "4:the store has no Once records table, or the broker no such queue",
                "70:unexpected failure (run with --verbose)"})
public final class OnceCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required: demo, inspect, stats, purge or dlq");
    }

    /** A command line with the error handling every subcommand shares. */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new OnceCommand());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExecutionExceptionHandler(new FailureHandler());
        return cl;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = OnceCommand.class.getPackage().getImplementationVersion();
            return new String[] {"once " + (v == null ? "(development build)" : v)};
        }
    }
}
