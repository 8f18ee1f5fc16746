package io.github.once.cli.demo;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The matrix as a table for people, with one line per trap row naming the traps it fell into. */
final class TableRenderer {
    private static final int CELL = 14;

    private TableRenderer() {
    }

    static void render(MatrixResult m, PrintWriter out) {
        int labelWidth = "consumer style".length();
        for (RowResult r : m.rows()) {
            labelWidth = Math.max(labelWidth, r.label().length());
        }
        out.printf(Locale.ROOT, "Once demo: %d consumer styles x %d faults on %s, %.1f s%n", m.rows().size(),
                Scenario.values().length, m.broker(), m.millis() / 1000.0);
        out.println("cell = effects/expected, d duplicate effects, l lost messages, q dead-lettered; ! = failure");
        out.println();
        StringBuilder header = new StringBuilder(pad("consumer style", labelWidth));
        for (Scenario s : Scenario.values()) {
            header.append("  ").append(pad(s.code(), CELL));
        }
        out.println(header.toString().stripTrailing());
        for (RowResult r : m.rows()) {
            StringBuilder line = new StringBuilder(pad(r.label(), labelWidth));
            for (CellResult c : r.cells()) {
                line.append("  ").append(pad(cell(c), CELL));
            }
            out.println(line.toString().stripTrailing());
        }
        out.println();
        out.println("Traps:");
        for (RowResult r : m.rows()) {
            if (!r.once()) {
                out.println("  " + trapLine(r));
            }
        }
        List<RowResult> onceRows = m.rows().stream().filter(RowResult::once).toList();
        if (!onceRows.isEmpty()) {
            int dup = onceRows.stream().mapToInt(RowResult::duplicates).sum();
            int lost = onceRows.stream().mapToInt(RowResult::lost).sum();
            out.printf(Locale.ROOT, "Once: %d duplicate and %d lost effects in %d rows%s%n", dup, lost,
                    onceRows.size(), m.onceFailures().isEmpty() ? "." : "; FAILED: "
                            + m.onceFailures().stream().map(RowResult::label).collect(Collectors.joining(", ")));
        }
        for (RowResult r : m.rows()) {
            for (CellResult c : r.cells()) {
                if (c.error() != null) {
                    out.println("  error in " + r.label() + " / " + c.scenario().title() + ": " + c.error());
                }
            }
        }
        out.println();
        out.println("Faults:");
        for (Scenario s : Scenario.values()) {
            out.println("  " + pad(s.code(), 11) + s.description());
        }
        for (String note : m.notes()) {
            out.println("Note: " + note);
        }
        out.flush();
    }

    static String cell(CellResult c) {
        if (c.error() != null) {
            return "error!";
        }
        return c.effects() + "/" + c.expectedEffects() + " d" + c.duplicates() + " l" + c.lost() + " q"
                + c.deadLettered() + (c.failed() ? "!" : "");
    }

    static String trapLine(RowResult r) {
        Map<Trap, List<Scenario>> traps = r.traps();
        if (traps.isEmpty()) {
            return r.label() + ": fell into no trap in this run";
        }
        return r.label() + ": " + traps.entrySet().stream()
                .map(e -> e.getKey().title() + " (" + e.getValue().stream().map(Scenario::code)
                        .collect(Collectors.joining(", ")) + ": " + e.getKey().effect() + ")")
                .collect(Collectors.joining("; "));
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }
}
