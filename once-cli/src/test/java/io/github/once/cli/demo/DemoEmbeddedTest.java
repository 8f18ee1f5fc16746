package io.github.once.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.once.cli.Cli;
import io.github.once.cli.MiniJson;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code once demo} on the embedded default: the broker, the in-memory store and H2 all in this process. */
class DemoEmbeddedTest {

    private static final List<String> ROWS = List.of("ack-first", "no-guard", "check-then-lock-memory",
            "once-in-memory", "once-h2", "once-h2-tx");

    @Test
    void jsonShowsEveryTrapRowFailingAndEveryOnceRowClean() {
        Cli run = Cli.run("demo", "--json");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        Map<String, Object> json = MiniJson.object(run.out());
        assertThat((String) json.get("broker")).contains("embedded");
        assertThat(json.get("notes")).asList().anySatisfy(n -> assertThat((String) n).contains("x-message-ttl"));
        MatrixAssertions.assertMatrix(json, ROWS);
        // --json prints nothing but the document: no progress bar, no banner
        assertThat(run.err()).isEmpty();
    }

    @Test
    void tableNamesTheTrapsAndReportsOnceClean() {
        Cli run = Cli.run("demo");

        assertThat(run.exitCode()).as(run.toString()).isZero();
        String out = run.out();
        assertThat(out).contains("re-send", "ack-lost", "crash", "concurrent", "poison", "no-id");
        assertThat(line(out, "Once, in-memory store")).contains("1/1 d0 l0 q0").contains("0/0 d0 l0 q1")
                .doesNotContain("!");
        assertThat(line(out, "Once, h2 transactional")).doesNotContain("!");
        assertThat(line(out, "manual ack, no guard")).contains("2/1 d1 l0 q0!");
        assertThat(line(out, "  ack before processing:")).contains("trap 2, ack before processing (crash, poison");
        assertThat(line(out, "  manual ack, no guard:")).contains("trap 1, no idempotency guard (re-send, ack-lost, "
                + "concurrent").contains("trap 3");
        assertThat(line(out, "  seed check-then-lock (memory):")).contains("sample trap 1, check-then-lock race",
                "sample trap 3, missing ID", "sample traps 2 and 4");
        assertThat(out).contains("Once: 0 duplicate and 0 lost effects in 3 rows.");
        assertThat(out).contains("Note: embedded broker");
        assertThat(run.err()).contains("once demo: 6 consumer styles x 6 faults");
    }

    private static String line(String text, String start) {
        return text.lines().filter(l -> l.startsWith(start)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting with '" + start + "' in\n" + text));
    }
}
