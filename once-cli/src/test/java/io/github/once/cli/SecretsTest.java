package io.github.once.cli;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No password given to the CLI ever comes back in what it prints, on success or on failure, with or without
 * {@code --verbose}: recognisable passwords in the Redis URI, the JDBC URL and the AMQP URI, against the live
 * services (which accept any password here) and against ports where nothing listens.
 */
class SecretsTest {
    private static final String REDIS_SECRET = "redis-s3cret-7f2a";
    private static final String PG_SECRET = "pg-s3cret-91c4";
    private static final String AMQP_SECRET = "amqp-s3cret-5d8e";

    @Test
    void noPasswordIsPrintedWhateverHappens() throws IOException {
        int nothingThere = spare();
        List<Cli> runs = new ArrayList<>();
        for (boolean verbose : new boolean[] {false, true}) {
            List<String> extra = verbose ? List.of("--verbose") : List.of();
            runs.add(run(extra, "stats", "--redis-uri", "redis://:" + REDIS_SECRET + "@127.0.0.1:6379"));
            runs.add(run(extra, "stats", "--redis-uri", "redis://:" + REDIS_SECRET + "@127.0.0.1:" + nothingThere));
            runs.add(run(extra, "stats", "--jdbc-url",
                    "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&password=" + PG_SECRET));
            runs.add(run(extra, "stats", "--jdbc-url",
                    "jdbc:postgresql://127.0.0.1:" + nothingThere + "/test?user=postgres&password=" + PG_SECRET));
        }
        runs.add(Cli.run("dlq", "list", "no-such-queue", "--amqp-uri",
                "amqp://guest:" + AMQP_SECRET + "@127.0.0.1:" + nothingThere));
        // A URI the client cannot use, and the demo's Redis: once printed the URI itself.
        runs.add(Cli.run("dlq", "list", "no-such-queue", "--amqp-uri",
                "amqps://guest:" + AMQP_SECRET + "@127.0.0.1:" + nothingThere + "/%2F?heartbeat=x"));
        runs.add(Cli.run("demo", "--redis-uri", "redis://:" + REDIS_SECRET + "@127.0.0.1:" + nothingThere));
        runs.add(Cli.run("stats", "--redis-uri", "redis://:" + REDIS_SECRET + "@127.0.0.1:6379/not-a-number"));
        runs.add(Cli.run("dlq", "list", "no-such-queue", "--amqp-uri",
                "amqp://guest:" + AMQP_SECRET + "@127.0.0.1:5672"));

        // The live services answered, and the others failed: both paths were printed.
        assertThat(runs).anyMatch(r -> r.exitCode() == 0).anyMatch(r -> r.exitCode() == ExitCodes.UNREACHABLE);
        for (Cli r : runs) {
            assertThat(r.out() + r.err()).as(r.toString())
                    .doesNotContain(REDIS_SECRET).doesNotContain(PG_SECRET).doesNotContain(AMQP_SECRET);
        }
    }

    private static Cli run(List<String> extra, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(extra);
        return Cli.run(all.toArray(String[]::new));
    }

    private static int spare() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
