package io.github.once.examples.orderflow;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's sample output is what {@code OrderFlowApp demo} prints: the demo runs as a user runs it, in a JVM
 * of its own on the real RabbitMQ, Redis and PostgreSQL, and its standard output is compared line for line.
 */
class DemoOutputTest {

    @Test
    void theDemoPrintsWhatTheReadmeShows() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        int start = readme.indexOf("```\norder-1:");
        assertThat(start).as("the README's sample output").isNotNegative();
        String shown = readme.substring(start + 4, readme.indexOf("```", start + 4)).strip();

        Process demo = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), OrderFlowApp.class.getName(), "demo")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String printed = new String(demo.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(demo.waitFor(2, TimeUnit.MINUTES)).as("the demo ends").isTrue();
        assertThat(demo.exitValue()).isZero();
        assertThat(printed.lines().toList()).isEqualTo(List.of(shown.split("\n")));
    }
}
