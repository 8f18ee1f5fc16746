package io.github.once.outbox;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs {@code rabbitmqctl} against the local broker, for what the client protocol cannot do. */
final class RabbitCtl {

    private RabbitCtl() {
    }

    static List<String> run(String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add("rabbitmqctl");
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<String> lines = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                lines.add(line);
            }
        }
        boolean done;
        try {
            done = p.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while rabbitmqctl ran", e);
        }
        if (!done || p.exitValue() != 0) {
            throw new IllegalStateException("rabbitmqctl " + String.join(" ", args) + " failed: " + lines);
        }
        return lines;
    }

    /** Names of the queues whose name starts with {@code prefix}. */
    static List<String> queuesStartingWith(String prefix) throws IOException {
        List<String> names = new ArrayList<>();
        for (String name : run("-q", "list_queues", "name")) {
            if (name.startsWith(prefix)) {
                names.add(name);
            }
        }
        return names;
    }
}
