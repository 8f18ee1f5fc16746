package io.github.once.cli.demo;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;

/** The matrix as JSON for machines: every number of every cell, the traps per row, and the verdict. */
final class JsonRenderer {
    private JsonRenderer() {
    }

    static void render(MatrixResult m, PrintWriter out) {
        StringBuilder sb = new StringBuilder();
        sb.append("{\"runId\":").append(str(m.runId()));
        sb.append(",\"broker\":").append(str(m.broker()));
        sb.append(",\"millis\":").append(m.millis());
        sb.append(",\"ok\":").append(m.onceFailures().isEmpty());
        sb.append(",\"notes\":[");
        appendAll(sb, m.notes().stream().map(JsonRenderer::str).toList());
        sb.append("],\"scenarios\":[");
        boolean first = true;
        for (Scenario s : Scenario.values()) {
            sb.append(first ? "" : ",").append("{\"code\":").append(str(s.code())).append(",\"title\":")
                    .append(str(s.title())).append(",\"description\":").append(str(s.description())).append('}');
            first = false;
        }
        sb.append("],\"rows\":[");
        first = true;
        for (RowResult r : m.rows()) {
            sb.append(first ? "" : ",");
            first = false;
            sb.append("{\"style\":").append(str(r.code())).append(",\"label\":").append(str(r.label()))
                    .append(",\"once\":").append(r.once()).append(",\"duplicates\":").append(r.duplicates())
                    .append(",\"lost\":").append(r.lost()).append(",\"failed\":").append(r.failed())
                    .append(",\"traps\":[");
            boolean firstTrap = true;
            for (Map.Entry<Trap, List<Scenario>> e : r.traps().entrySet()) {
                sb.append(firstTrap ? "" : ",").append("{\"trap\":").append(str(e.getKey().name()))
                        .append(",\"title\":").append(str(e.getKey().title())).append(",\"scenarios\":[");
                appendAll(sb, e.getValue().stream().map(s -> str(s.code())).toList());
                sb.append("]}");
                firstTrap = false;
            }
            sb.append("],\"cells\":[");
            boolean firstCell = true;
            for (CellResult c : r.cells()) {
                sb.append(firstCell ? "" : ",");
                firstCell = false;
                sb.append("{\"scenario\":").append(str(c.scenario().code()))
                        .append(",\"expectedEffects\":").append(c.expectedEffects())
                        .append(",\"effects\":").append(c.effects())
                        .append(",\"duplicates\":").append(c.duplicates())
                        .append(",\"lost\":").append(c.lost())
                        .append(",\"deadLettered\":").append(c.deadLettered())
                        .append(",\"deliveries\":").append(c.deliveries())
                        .append(",\"ending\":").append(str(c.ending().name()))
                        .append(",\"millis\":").append(c.millis())
                        .append(",\"failed\":").append(c.failed())
                        .append(",\"traps\":[");
                appendAll(sb, c.traps().stream().map(t -> str(t.name())).toList());
                sb.append("],\"error\":").append(c.error() == null ? "null" : str(c.error())).append('}');
            }
            sb.append("]}");
        }
        sb.append("]}");
        out.println(sb);
        out.flush();
    }

    private static void appendAll(StringBuilder sb, List<String> items) {
        sb.append(String.join(",", items));
    }

    static String str(String s) {
        StringBuilder sb = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        sb.append(String.format("\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
                }
            }
        }
        return sb.append('"').toString();
    }
}
