package io.github.once.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.once.cli.MiniJson;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The table, the JSON and the progress bar, from a hand-made result. */
class RenderingTest {

    private static MatrixResult sample() {
        CellResult dup = new CellResult(Scenario.PRODUCER_RESEND, 1, 2, 1, 0, 0, 2, CellResult.Ending.SETTLED,
                List.of(Trap.NO_GUARD), 10, null);
        CellResult error = CellResult.error(Scenario.POISON, "broker said \"no\"\nreally", 5);
        CellResult clean = new CellResult(Scenario.MISSING_ID, 1, 0, 0, 0, 1, 1, CellResult.Ending.SETTLED,
                List.of(), 7, null);
        return new MatrixResult("ab12cd", "a broker", List.of("a note"), List.of(
                new RowResult("no-guard", "manual ack, no guard", false, List.of(dup)),
                new RowResult("once-x", "Once, x store", true, List.of(clean, error))), 1234);
    }

    @Test
    void cellsShowEffectsDuplicatesLossesAndDeadLetters() {
        assertThat(TableRenderer.cell(sample().rows().get(0).cells().get(0))).isEqualTo("2/1 d1 l0 q0!");
        assertThat(TableRenderer.cell(sample().rows().get(1).cells().get(0))).isEqualTo("0/1 d0 l0 q1");
        assertThat(TableRenderer.cell(sample().rows().get(1).cells().get(1))).isEqualTo("error!");
    }

    @Test
    void aOnceRowWithAnErrorCountsAsFailed() {
        assertThat(sample().onceFailures()).extracting(RowResult::code).containsExactly("once-x");
        StringWriter out = new StringWriter();
        TableRenderer.render(sample(), new PrintWriter(out));
        assertThat(out.toString()).contains("FAILED: Once, x store", "error in Once, x store / poison message",
                "manual ack, no guard: trap 1, no idempotency guard (re-send: the copy ran the effect again)",
                "Note: a note");
    }

    @Test
    void jsonEscapesTextAndCarriesEveryField() {
        StringWriter out = new StringWriter();
        JsonRenderer.render(sample(), new PrintWriter(out));
        Map<String, Object> json = MiniJson.object(out.toString());
        assertThat(json).containsEntry("runId", "ab12cd").containsEntry("ok", false).containsEntry("millis", 1234L);
        @SuppressWarnings("unchecked")
        Map<String, Object> once = ((List<Map<String, Object>>) json.get("rows")).get(1);
        Map<String, Object> poison = MatrixAssertions.cell(once, "poison");
        assertThat(poison).containsEntry("error", "broker said \"no\"\nreally").containsEntry("ending", "ERROR");
        assertThat(json.get("scenarios")).asList().hasSize(Scenario.values().length);
    }

    @Test
    void progressBarFillsAndClearsItsLine() {
        StringWriter err = new StringWriter();
        ProgressBar bar = new ProgressBar(new PrintWriter(err), 4);
        bar.accept(2);
        assertThat(err.toString()).isEqualTo("\r[" + "#".repeat(15) + ".".repeat(15) + "] 2/4 cells");
        bar.accept(4);
        assertThat(err.toString()).endsWith("\r");
    }
}
