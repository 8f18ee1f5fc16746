package io.github.once.micrometer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shipped alert rules pass {@code promtool check rules}, and their unit tests ({@code once-alerts-test.yml}:
 * each alert fires on one series and stays quiet on another) pass {@code promtool test rules}.
 */
class AlertRulesTest {

    @Test
    void rulesPassPromtoolCheck() throws Exception {
        Run run = promtool("check", "rules", OpsFiles.RULES.toString());
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("SUCCESS: 7 rules found");
    }

    @Test
    void rulesPassTheirPromtoolUnitTests() throws Exception {
        Run run = promtool("test", "rules", OpsFiles.RULE_TESTS.toString());
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output()).contains("SUCCESS");
    }

    record Run(int exit, String output) {
    }

    static Run promtool(String... args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of(executable("promtool")));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).directory(OpsFiles.PROMETHEUS.toFile()).redirectErrorStream(true).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("promtool " + String.join(" ", args) + " did not finish within 60 s");
        }
        return new Run(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /** The path of a Prometheus executable; missing means the machine was not set up: fail, never skip. */
    static String executable(String name) {
        for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path candidate = Path.of(dir, name);
            if (candidate.toFile().canExecute()) {
                return candidate.toString();
            }
        }
        throw new AssertionError(name + " is not on the PATH: run scripts/prometheus.sh (Debian's prometheus package)");
    }
}
