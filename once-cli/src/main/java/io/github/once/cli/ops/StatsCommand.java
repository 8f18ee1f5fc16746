package io.github.once.cli.ops;

import io.github.once.IdempotencyKey;
import io.github.once.cli.CliException;
import io.github.once.cli.ExitCodes;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code once stats}: records by state, the oldest claim in progress, and the expired backlog. */
@Command(name = "stats", mixinStandardHelpOptions = true,
        description = "Counts records by state (completed, in progress, lapsed), shows the oldest record still in "
                + "progress and the expired backlog a purge would delete.")
public final class StatsCommand implements Callable<Integer> {

    @Mixin
    StoreOptions store;

    @Option(names = "--namespace", paramLabel = "NAMESPACE", description = "Only this namespace.")
    String namespace;

    @Option(names = "--json", description = "Print the numbers as JSON.")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (namespace != null) {
            try {
                IdempotencyKey.of(namespace, "x");
            } catch (IllegalArgumentException e) {
                throw CliException.usage(e.getMessage());
            }
        }
        PrintWriter out = spec.commandLine().getOut();
        try (OpsStore s = store.open()) {
            StoreStats st = s.stats(namespace);
            if (json) {
                out.println(Json.stats(st, s.describe(), namespace));
            } else {
                out.println("store            " + s.describe() + (namespace == null ? "" : ", namespace " + namespace));
                out.println("completed        " + st.completed());
                out.println("in progress      " + st.inProgress() + "  (lease live)");
                out.println("lapsed           " + st.lapsed() + "  (in progress, lease ended: released or owner died)");
                out.println("oldest in prog.  " + (st.oldestKey() == null ? "none"
                        : st.oldestKey() + ", claimed " + st.oldestClaimedAt() + " ("
                                + Human.duration(Duration.between(st.oldestClaimedAt(), st.now()).abs()) + " ago)"));
                out.println("expired backlog  " + (st.expiredBacklog() < 0 ? "n/a" : String.valueOf(st.expiredBacklog())));
                if (st.note() != null) {
                    out.println("note             " + st.note());
                }
            }
            out.flush();
            return ExitCodes.OK;
        }
    }
}
