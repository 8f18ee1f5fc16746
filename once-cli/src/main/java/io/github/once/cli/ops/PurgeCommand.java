package io.github.once.cli.ops;

import io.github.once.cli.ExitCodes;
import io.github.once.spi.StoreInspector;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.IntUnaryOperator;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code once purge [--namespace NS] [--dry-run]}: deletes expired records in bounded batches; with
 * {@code --all-records --yes}, every record of one namespace (a reset).
 */
@Command(name = "purge", mixinStandardHelpOptions = true,
        description = "Deletes records past their expiry, of every namespace or of one, in bounded batches (never "
                + "one unbounded DELETE). Redis expires records itself, so there it reports that there is nothing "
                + "to purge. With --all-records and --yes it resets one namespace: every record of it goes, "
                + "whatever its standing.")
public final class PurgeCommand implements Callable<Integer> {

    /** Rows per batch: each batch is one short statement of the store's. */
    static final int BATCH = 1_000;

    @Mixin
    StoreOptions store;

    @Option(names = "--namespace", paramLabel = "NAMESPACE", description = "Only this namespace's expired records.")
    String namespace;

    @Option(names = "--dry-run", description = "Only count what a purge would delete.")
    boolean dryRun;

    @Option(names = "--max", paramLabel = "N", defaultValue = "1000000",
            description = "Delete at most N records in this run (default ${DEFAULT-VALUE}).")
    int max;

    @Option(names = "--all-records", description = "Reset --namespace: delete all its records, in progress and "
            + "completed alike, not only expired ones. Stop its consumers first: a deleted record lets a "
            + "redelivery or a duplicate run the handler again. Needs --yes.")
    boolean allRecords;

    @Option(names = "--yes", description = "Confirms --all-records.")
    boolean yes;

    @Option(names = "--json", description = "Print the outcome as JSON.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (max < 1) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--max must be at least 1, but was " + max);
        }
        StoreOptions.requireNamespace(namespace);
        if (allRecords) {
            requireConfirmedReset();
        }
        PrintWriter out = spec.commandLine().getOut();
        try (OpsStore s = store.open()) {
            if (allRecords) {
                return reset(s, out);
            }
            long count;
            String note;
            if (s.expiresRecordsItself()) {
                long visible = s.count(namespace).expired();
                count = 0;
                note = "nothing to purge: " + s.kind() + " deletes each record itself at its expiry"
                        + (visible > 0 ? "; " + visible + " expired records are still visible and go at its next "
                                + "expiry cycle" : "");
            } else if (dryRun) {
                long expired = s.count(namespace).expired();
                count = Math.min(expired, max);
                note = expired > max ? expired + " expired; a purge would delete " + max + " (raise --max)" : null;
            } else {
                count = purge(s);
                note = count >= max ? "stopped at --max " + max + "; run again for more" : null;
            }
            String scope = namespace == null ? "" : " of namespace " + namespace;
            if (json) {
                out.println(Json.purge(dryRun, count, s.describe(), namespace, note));
            } else {
                out.println((dryRun ? "would delete " : "deleted ") + Human.count(count, "expired record") + scope
                        + " from "
                        + s.describe() + (note == null ? "" : "; " + note));
            }
            out.flush();
            return ExitCodes.OK;
        }
    }

    private void requireConfirmedReset() {
        if (namespace == null) {
            throw new CommandLine.ParameterException(spec.commandLine(),
                    "--all-records resets one namespace: name it with --namespace");
        }
        if (!yes && !dryRun) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--all-records deletes the records that keep"
                    + " namespace " + namespace + "'s messages from running twice; stop its consumers, then add --yes");
        }
    }

    /** Every record of the namespace, batch after batch, until one comes back short or --max is reached. */
    private int reset(OpsStore s, PrintWriter out) {
        long count;
        String note = null;
        if (dryRun) {
            StoreInspector.Counts c = s.count(namespace);
            long all = c.inProgress() + c.released() + c.lapsed() + c.completed() + c.expired();
            count = Math.min(all, max);
            note = all > max ? all + " records; a reset would delete " + max + " (raise --max)" : null;
        } else {
            count = batches(batch -> s.deleteNamespace(namespace, batch));
            note = count >= max ? "stopped at --max " + max + "; run again for more" : null;
        }
        if (json) {
            out.println(Json.purge(dryRun, count, s.describe(), namespace, note));
        } else {
            out.println((dryRun ? "would delete " : "deleted ") + Human.count(count, "record") + " of namespace "
                    + namespace + ", all of them (a reset), from " + s.describe() + (note == null ? "" : "; " + note));
        }
        out.flush();
        return ExitCodes.OK;
    }

    private long purge(OpsStore s) {
        return batches(batch -> s.purgeExpired(namespace, batch));
    }

    /** Batch after batch until one comes back short (nothing left for now) or --max is reached. */
    private long batches(IntUnaryOperator deleteBatch) {
        long total = 0;
        while (total < max) {
            int batch = (int) Math.min(BATCH, max - total);
            int deleted = deleteBatch.applyAsInt(batch);
            total += deleted;
            if (deleted < batch) {
                break;
            }
        }
        return total;
    }
}
