package io.github.once.cli.ops;

import io.github.once.cli.ExitCodes;
import io.github.once.spi.StoreInspector;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code once stats}: records by standing, the oldest claims still open, and the expired backlog. */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = "Counts records by standing (completed, in progress, released, lapsed), lists the oldest "
                + "claims still open (live or lapsed, not released) and the expired backlog a purge would delete.")
public final class StatsCommand implements Callable<Integer> {

    @Mixin
    StoreOptions store;

    @Option(names = "--namespace", paramLabel = "NAMESPACE", description = "Only this namespace.")
    String namespace;

    @Option(names = "--oldest", paramLabel = "N", defaultValue = "1",
            description = "How many of the oldest open claims to list (default ${DEFAULT-VALUE}).")
    int oldest;

    @Option(names = "--json", description = "Print the numbers as JSON.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        StoreOptions.requireNamespace(namespace);
        if (oldest < 0) {
            throw new CommandLine.ParameterException(spec.commandLine(), "--oldest must not be negative, but was "
                    + oldest);
        }
        PrintWriter out = spec.commandLine().getOut();
        try (OpsStore s = store.open()) {
            StoreInspector.Counts c = s.count(namespace);
            List<StoreInspector.Summary> open = s.oldestInProgress(namespace, oldest);
            boolean tells = s.tellsReleasedFromLapsed();
            String note = s.expiresRecordsItself()
                    ? s.kind() + " deletes each record itself at its expiry; expired ones still seen go at its next "
                            + "expiry cycle"
                    : c.expired() > 0 ? "expired records stay until a purge deletes them" : null;
            if (json) {
                out.println(Json.stats(c, tells, open, s.describe(), namespace, note));
            } else {
                out.println("store            " + s.describe() + (namespace == null ? "" : ", namespace " + namespace));
                out.println("completed        " + c.completed());
                out.println("in progress      " + c.inProgress() + "  (lease live: a consumer is working on it)");
                out.println("released         " + (tells ? c.released() + "  (handler failed, claim given back: "
                        + "waiting for its retry)" : "n/a  (this store does not tell released from lapsed)"));
                out.println("lapsed           " + c.lapsed() + "  (" + (tells
                        ? "lease ran out without a release: owner died or stalled)"
                        : "lease ended: released after a failure, or owner died)"));
                if (open.isEmpty()) {
                    out.println("oldest in prog.  none");
                }
                for (int i = 0; i < open.size(); i++) {
                    out.println((i == 0 ? "oldest in prog.  " : "                 ") + line(open.get(i), c));
                }
                out.println("expired backlog  " + c.expired());
                if (note != null) {
                    out.println("note             " + note);
                }
            }
            out.flush();
            return ExitCodes.OK;
        }
    }

    private static String line(StoreInspector.Summary r, StoreInspector.Counts c) {
        return r.displayKey() + ", claimed " + r.claimedAt() + " ("
                + Human.duration(Duration.between(r.claimedAt(), c.now()).abs()) + " ago), "
                + (r.standing() == StoreInspector.Standing.IN_PROGRESS ? "lease live" : "lease lapsed");
    }
}
