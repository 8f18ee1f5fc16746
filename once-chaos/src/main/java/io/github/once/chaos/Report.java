package io.github.once.chaos;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** The markdown report: the faults injected per kind and mode, then one line per mode with the checker's counts. */
final class Report {

    /** One mode's line. */
    record Line(String name, ModeRun.Result result, boolean expectedToFail) {
        boolean asExpected() {
            return result.verdict().passed() != expectedToFail;
        }
    }

    private Report() {
    }

    static String render(String command, long seed, List<Line> lines, long totalMillis) {
        StringBuilder md = new StringBuilder();
        md.append("Rerun: `").append(command).append("` (fault plan number ").append(seed).append("), ")
                .append(String.format("%.1f min", totalMillis / 60_000.0)).append(" in all.\n\n");
        md.append("| fault |");
        lines.forEach(l -> md.append(' ').append(l.name()).append(" |"));
        md.append("\n|---|");
        lines.forEach(l -> md.append("---:|"));
        md.append('\n');
        for (FaultKind kind : FaultKind.values()) {
            md.append("| ").append(kind.label()).append(" |");
            for (Line l : lines) {
                long injected = l.result().faults().stream().filter(f -> f.kind() == kind && f.injected()).count();
                long failed = l.result().faults().stream().filter(f -> f.kind() == kind && !f.injected()).count();
                md.append(' ').append(kind.appliesTo(l.result().verdict().mode()) ? Long.toString(injected) : "-")
                        .append(failed > 0 ? " (+" + failed + " failed)" : "").append(" |");
            }
            md.append('\n');
        }
        md.append("\n| mode | messages | sends | effects | lost | duplicated ids (extra effects) | explained | "
                + "allowance | dead-lettered | unexpected | minutes | result |\n");
        md.append("|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---|\n");
        for (Line l : lines) {
            Checker.Verdict v = l.result().verdict();
            md.append("| ").append(l.name())
                    .append(" | ").append(v.messages())
                    .append(" | ").append(v.sends())
                    .append(" | ").append(v.effects())
                    .append(" | ").append(v.lost().size())
                    .append(" | ").append(v.duplicatedIds()).append(" (").append(v.extraEffects()).append(')')
                    .append(" | ").append(explained(v))
                    .append(" | ").append(v.mode().allowance())
                    .append(" | ").append(v.deadLettered().size())
                    .append(" | ").append(v.unexpected().size())
                    .append(" | ").append(String.format("%.1f", l.result().millis() / 60_000.0))
                    .append(" | ").append(outcome(l))
                    .append(" |\n");
        }
        for (Line l : lines) {
            if (!l.result().note().isEmpty()) {
                md.append("\n").append(l.name()).append(": ").append(l.result().note()).append('.');
            }
        }
        return md.toString();
    }

    private static String explained(Checker.Verdict v) {
        if (v.extraEffects() == 0) {
            return "-";
        }
        String parts = v.explained().entrySet().stream()
                .map((Map.Entry<Checker.Reason, Integer> e) -> e.getValue() + " " + e.getKey().text)
                .collect(Collectors.joining("; "));
        return (parts.isEmpty() ? "" : parts) + (v.unexplained().isEmpty() ? "" : (parts.isEmpty() ? "" : "; ")
                + v.unexplained().size() + " unexplained");
    }

    private static String outcome(Line l) {
        String verdict = l.result().verdict().passed() ? "pass" : "FAIL";
        if (l.expectedToFail()) {
            return verdict + (l.asExpected() ? " (expected: the checker caught it)" : " (SELF-TEST NOT CAUGHT)");
        }
        return verdict + (l.result().unexpectedWorkerExits() > 0
                ? ", " + l.result().unexpectedWorkerExits() + " worker exits" : "");
    }
}
