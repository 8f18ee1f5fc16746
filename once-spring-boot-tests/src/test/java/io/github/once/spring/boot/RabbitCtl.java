package io.github.once.spring.boot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * {@code rabbitmqctl} on the local broker, for what the client protocol cannot do: close a connection from the
 * broker's side, count a queue's unacknowledged messages with its ready ones, and say where a stuck queue stands.
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

    /**
     * For a failure message: the broker's view of {@code queue} (ready, unacknowledged, consumers, and each
     * consumer's channel and prefetch) and the stacks of the listener containers' threads.
     */
    static String diagnose(String queue) {
        StringBuilder s = new StringBuilder("\nbroker: name ready unacked consumers\n");
        try {
            run("list_queues", "name", "messages_ready", "messages_unacknowledged", "consumers").stream()
                    .filter(l -> l.startsWith(queue + "\t")).forEach(l -> s.append("  ").append(l).append('\n'));
            s.append("consumers: channel tag prefetch\n");
            run("list_consumers", "queue_name", "channel_pid", "consumer_tag", "prefetch_count").stream()
                    .filter(l -> l.startsWith(queue + "\t")).forEach(l -> s.append("  ").append(l).append('\n'));
        } catch (IllegalStateException e) {
            s.append("  (").append(e.getMessage()).append(")\n");
        }
        s.append("threads:\n");
        Thread.getAllStackTraces().forEach((t, stack) -> {
            boolean listener = java.util.Arrays.stream(stack)
                    .anyMatch(f -> f.getClassName().startsWith("org.springframework.amqp.rabbit.listener"));
            if (listener || t.getName().startsWith("once-")) {
                s.append("  ").append(t.getName()).append(" ").append(t.getState()).append('\n');
                java.util.Arrays.stream(stack).limit(12).forEach(f -> s.append("    at ").append(f).append('\n'));
            }
        });
        return s.toString();
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
