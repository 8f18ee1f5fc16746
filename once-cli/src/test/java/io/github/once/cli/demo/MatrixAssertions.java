package io.github.once.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

/** What every demo run must show, cell by cell: the trap rows' failures and the Once rows' clean sheet. */
final class MatrixAssertions {
    private MatrixAssertions() {
    }

    static final List<String> SCENARIOS = List.of("re-send", "ack-lost", "crash", "concurrent", "poison", "no-id");

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> rows(Map<String, Object> json) {
        return (List<Map<String, Object>>) json.get("rows");
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> cell(Map<String, Object> row, String scenario) {
        for (Map<String, Object> c : (List<Map<String, Object>>) row.get("cells")) {
            if (scenario.equals(c.get("scenario"))) {
                return c;
            }
        }
        throw new AssertionError("no cell " + scenario + " in " + row.get("style"));
    }

    static Map<String, Object> row(Map<String, Object> json, String style) {
        return rows(json).stream().filter(r -> style.equals(r.get("style"))).findFirst()
                .orElseThrow(() -> new AssertionError("no row " + style));
    }

    static void assertMatrix(Map<String, Object> json, List<String> styles) {
        assertThat(rows(json)).extracting(r -> r.get("style")).containsExactlyElementsOf(styles);
        for (Map<String, Object> row : rows(json)) {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> cells = (List<Map<String, Object>>) row.get("cells");
            assertThat(cells).extracting(c -> c.get("scenario")).containsExactlyElementsOf(SCENARIOS);
            for (Map<String, Object> c : cells) {
                assertThat(c).containsKeys("expectedEffects", "effects", "duplicates", "lost", "deadLettered",
                        "deliveries", "ending", "millis", "traps");
                assertThat(c.get("error")).as("error in %s/%s", row.get("style"), c.get("scenario")).isNull();
            }
            String style = (String) row.get("style");
            if (style.startsWith("once-")) {
                assertOnceRow(row);
            } else if (style.equals("ack-first")) {
                assertCell(row, "re-send", 2, 1, 0, 0, "NO_GUARD");
                assertCell(row, "ack-lost", 1, 0, 0, 0);
                assertCell(row, "crash", 0, 0, 1, 0, "ACK_BEFORE_PROCESSING");
                assertCell(row, "concurrent", 1, 0, 0, 0);
                assertCell(row, "poison", 0, 0, 1, 0, "ACK_BEFORE_PROCESSING");
                assertCell(row, "no-id", 1, 0, 0, 0);
            } else if (style.equals("no-guard")) {
                assertCell(row, "re-send", 2, 1, 0, 0, "NO_GUARD");
                assertCell(row, "ack-lost", 2, 1, 0, 0, "NO_GUARD");
                assertCell(row, "crash", 1, 0, 0, 0);
                assertCell(row, "concurrent", 2, 1, 0, 0, "NO_GUARD");
                assertCell(row, "poison", 0, 0, 1, 0, "RETRY_LOOP");
                assertThat(cell(row, "poison").get("ending")).isEqualTo("LOOPING");
                assertCell(row, "no-id", 1, 0, 0, 0);
            } else if (style.startsWith("check-then-lock-")) {
                assertCell(row, "re-send", 1, 0, 0, 0);
                assertCell(row, "ack-lost", 1, 0, 0, 0);
                assertCell(row, "crash", 0, 0, 1, 0, "LOCKED_LEFT_UNACKED");
                assertThat(cell(row, "crash").get("ending")).isEqualTo("STUCK");
                assertCell(row, "concurrent", 2, 1, 0, 0, "CHECK_THEN_LOCK_RACE");
                assertCell(row, "poison", 0, 0, 1, 0, "RETRY_LOOP");
                assertCell(row, "no-id", 0, 0, 1, 0, "MISSING_ID_DROPPED");
            } else {
                throw new AssertionError("unexpected row " + style);
            }
        }
        assertThat(json.get("ok")).isEqualTo(true);
    }

    private static void assertOnceRow(Map<String, Object> row) {
        assertThat(row.get("duplicates")).as("%s duplicates", row.get("style")).isEqualTo(0L);
        assertThat(row.get("lost")).as("%s lost", row.get("style")).isEqualTo(0L);
        for (String s : List.of("re-send", "ack-lost", "crash", "concurrent")) {
            assertCell(row, s, 1, 0, 0, 0);
        }
        assertCell(row, "poison", 0, 0, 0, 1);
        assertCell(row, "no-id", 0, 0, 0, 1);
        assertThat(row.get("traps")).asList().isEmpty();
    }

    private static void assertCell(Map<String, Object> row, String scenario, long effects, long duplicates, long lost,
            long deadLettered, String... traps) {
        Map<String, Object> c = cell(row, scenario);
        String what = row.get("style") + "/" + scenario + " " + c;
        assertThat(c.get("effects")).as(what).isEqualTo(effects);
        assertThat(c.get("duplicates")).as(what).isEqualTo(duplicates);
        assertThat(c.get("lost")).as(what).isEqualTo(lost);
        assertThat(c.get("deadLettered")).as(what).isEqualTo(deadLettered);
        assertThat(c.get("traps")).as(what).asList().containsExactly((Object[]) traps);
        assertThat(c.get("failed")).as(what).isEqualTo(duplicates > 0 || lost > 0);
    }
}
