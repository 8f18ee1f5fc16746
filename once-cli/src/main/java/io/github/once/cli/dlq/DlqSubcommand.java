package io.github.once.cli.dlq;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/** What list and move share: the options, and a dead-letter queue opened for the command and closed after it. */
abstract class DlqSubcommand implements Callable<Integer> {

    @Mixin
    DlqOptions options;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public final Integer call() {
        if (options.max < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max must be at least 1, but was "
                    + options.max);
        }
        PrintWriter out = spec.commandLine().getOut();
        try (DlqSession dlq = DlqSession.open(options.amqpUri, options.queue)) {
            int code = run(dlq, out);
            out.flush();
            return code;
        }
    }

    /** The command's work on the opened queue; returns the exit status. */
    abstract int run(DlqSession dlq, PrintWriter out);
}
