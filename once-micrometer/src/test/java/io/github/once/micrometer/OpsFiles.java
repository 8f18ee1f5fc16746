package io.github.once.micrometer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The alert rules and the dashboard shipped under ops/, and the PromQL in them. */
final class OpsFiles {
    private OpsFiles() {
    }

    static final Path PROMETHEUS = Path.of("..", "ops", "prometheus").toAbsolutePath().normalize();
    static final Path RULES = PROMETHEUS.resolve("once-alerts.yml");
    static final Path RULE_TESTS = PROMETHEUS.resolve("once-alerts-test.yml");
    static final Path DASHBOARD = Path.of("..", "ops", "grafana", "once-dashboard.json").toAbsolutePath().normalize();

    private static final Pattern RULE_EXPR = Pattern.compile("(?m)^\\s*expr:\\s*(.+)$");
    private static final Pattern PANEL_EXPR = Pattern.compile("\"expr\":\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern METRIC = Pattern.compile("\\bonce_[a-z0-9_]+\\b");

    /** Every rule's expression, as written. */
    static List<String> ruleExpressions() throws IOException {
        List<String> exprs = new ArrayList<>();
        Matcher m = RULE_EXPR.matcher(Files.readString(RULES));
        while (m.find()) {
            exprs.add(m.group(1).trim());
        }
        return exprs;
    }

    /** Every panel query of the dashboard, with Grafana's variables set as a query over all series would. */
    static List<String> dashboardExpressions() throws IOException {
        List<String> exprs = new ArrayList<>();
        Matcher m = PANEL_EXPR.matcher(Files.readString(DASHBOARD));
        while (m.find()) {
            exprs.add(m.group(1).replace("\\\"", "\"").replace("\\\\", "\\")
                    .replace("$__rate_interval", "1m").replace("$namespace", ".*").replace("$queue", ".*"));
        }
        return exprs;
    }

    static Set<String> metricNames(List<String> exprs) {
        Set<String> names = new TreeSet<>();
        for (String expr : exprs) {
            Matcher m = METRIC.matcher(expr);
            while (m.find()) {
                names.add(m.group());
            }
        }
        return names;
    }

    /** The rules with every {@code for:} set to 0s, for a live test that cannot wait minutes. */
    static String rulesWithoutFor() throws IOException {
        return Files.readString(RULES).replaceAll("(?m)^(\\s*)for:\\s*\\S+$", "$1for: 0s");
    }
}
