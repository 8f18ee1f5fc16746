package io.github.once.cli.ops;

import io.github.once.cli.ExitCodes;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code once purge [--dry-run]}: deletes expired records in bounded batches. */
@Command(name = "purge", mixinStandardHelpOptions = true,
        description = "Deletes records past their expiry, in bounded batches (never one unbounded DELETE). "
                + "Redis expires records itself, so there it reports that there is nothing to purge.")
public final class PurgeCommand implements Callable<Integer> {

    @Mixin
    StoreOptions store;

    @Option(names = "--dry-run", description = "Only count what a purge would delete.")
    boolean dryRun;

    @Option(names = "--max", paramLabel = "N", defaultValue = "1000000",
            description = "Delete at most N records in this run (default ${DEFAULT-VALUE}).")
    int max;

    @Option(names = "--json", description = "Print the outcome as JSON.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (max < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max must be at least 1, but was " + max);
        }
        PrintWriter out = spec.commandLine().getOut();
        try (OpsStore s = store.open()) {
            PurgeReport p = s.purge(dryRun, max);
            if (json) {
                out.println(Json.purge(p, s.describe()));
            } else {
                out.println((p.dryRun() ? "would delete " : "deleted ") + p.count() + " expired records from "
                        + s.describe() + (p.note() == null ? "" : "; " + p.note()));
            }
            out.flush();
            return ExitCodes.OK;
        }
    }
}
