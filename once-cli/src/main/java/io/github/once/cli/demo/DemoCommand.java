package io.github.once.cli.demo;

import io.github.once.cli.ExitCodes;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code once demo}: the trap matrix, on the embedded broker and stores or on real ones. */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = {
                "Runs each consumer style against each fault and counts the effects: the seed's traps, and Once.",
                "By default everything runs in this process: an embedded AMQP 0-9-1 broker (Apache Qpid Broker-J),"
                        + " the in-memory store and H2. Exit status 1 when a Once row shows a duplicate or a lost"
                        + " effect."})
public final class DemoCommand implements Callable<Integer> {

    @Option(names = "--amqp-uri", paramLabel = "URI",
            description = "A real broker instead of the embedded one, e.g. amqp://guest:guest@127.0.0.1:5672/%%2F")
    String amqpUri;

    @Option(names = "--redis-uri", paramLabel = "URI",
            description = "Adds the seed's check-then-lock and Once on this Redis, e.g. redis://127.0.0.1:6379")
    String redisUri;

    @Option(names = "--jdbc-url", paramLabel = "URL",
            description = "Adds Once on this database (PostgreSQL or MariaDB), separate and transactional, "
                    + "e.g. jdbc:postgresql://127.0.0.1:5432/test?user=postgres")
    String jdbcUrl;

    @Option(names = "--json", description = "Print the matrix as JSON (no table, no progress bar).")
    boolean json;

    @Option(names = "--parallel", paramLabel = "N", defaultValue = "4",
            description = "Cells run at once (1 to 16, default ${DEFAULT-VALUE}).")
    int parallel;

    @Option(names = "--verbose", description = "Stack traces on failure, and library logs.")
    boolean verbose;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (parallel < 1 || parallel > 16) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--parallel must be 1 to 16, but was " + parallel);
        }
        DemoTargets targets = DemoTargets.parse(spec.commandLine(), amqpUri, redisUri, jdbcUrl);
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try (DemoSetup setup = DemoSetup.open(targets)) {
            int total = Matrix.cells(setup.styles().size());
            boolean bar = !json && System.console() != null;
            if (!json) {
                err.println("once demo: " + setup.styles().size() + " consumer styles x " + Scenario.values().length
                        + " faults on " + setup.broker() + " ...");
                err.flush();
            }
            MatrixResult result = Matrix.run(setup.runId(), setup.styles(), setup.amqp(), setup.broker(), setup.notes(), parallel,
                    bar ? new ProgressBar(err, total) : done -> { });
            if (json) {
                JsonRenderer.render(result, out);
            } else {
                TableRenderer.render(result, out);
            }
            return exitCode(result);
        }
    }

    /** Non-zero when any Once row showed a duplicate or a lost effect (or could not run). */
    static int exitCode(MatrixResult result) {
        return result.onceFailures().isEmpty() ? ExitCodes.OK : ExitCodes.ONCE_FAILED;
    }
}
