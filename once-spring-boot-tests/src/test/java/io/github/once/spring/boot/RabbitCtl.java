package io.github.once.spring.boot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code rabbitmqctl} on the local broker, for what the client protocol cannot do: close a connection from the
 * broker's side, and count a queue's unacknowledged messages with its ready ones.
 */
final class RabbitCtl {
    private RabbitCtl() {
    }

    /** Closes, from the broker's side, every connection whose client named it {@code name}; returns how many. */
    static int closeConnectionsNamed(String name) {
        String wanted = "{\"connection_name\",\"" + name + "\"}";
        List<String> pids = new ArrayList<>();
        for (String line : run("list_connections", "pid", "client_properties")) {
            if (line.contains(wanted)) {
                pids.add(line.substring(0, line.indexOf('\t')));
            }
        }
        for (String pid : pids) {
            run("close_connection", pid, "once scenario test");
        }
        return pids.size();
    }

    /** The messages of {@code queue}, ready and unacknowledged. */
    static long messages(String queue) {
        for (String line : run("list_queues", "name", "messages")) {
            String[] columns = line.split("\t");
            if (columns.length == 2 && columns[0].equals(queue)) {
                return Long.parseLong(columns[1].trim());
            }
        }
        throw new IllegalStateException("rabbitmqctl does not list queue " + queue);
    }

    private static List<String> run(String... args) {
        List<String> command = new ArrayList<>(List.of("rabbitmqctl", "-q"));
        command.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed: " + out);
            }
            return out.lines().toList();
        } catch (IOException e) {
            throw new IllegalStateException("could not run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
        }
    }
}
