package io.github.once.bench.e2e;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPU time (user and system) of every process a run involves, read from Linux's {@code /proc}: this JVM, and by
 * their command names RabbitMQ ({@code beam.smp}), Redis ({@code redis-server}) and PostgreSQL ({@code postgres},
 * every backend). On two shared cores that CPU, not the wall clock, is what a message costs; dividing a run's CPU by
 * its messages gives a figure that does not depend on how loaded the machine was. Empty where there is no
 * {@code /proc}.
 */
final class ProcessCpu {
    /** The processes a run's CPU is split by. */
    enum Part {
        JVM, RABBITMQ, REDIS, POSTGRESQL
    }

    private static final Path PROC = Path.of("/proc");
    private static final long SELF = ProcessHandle.current().pid();
    private static final long NANOS_PER_TICK = 1_000_000_000L / ticksPerSecond();

    /** CPU nanoseconds so far, per process id, of the processes of each part. */
    private final Map<Long, Long> nanosByPid;
    private final Map<Long, Part> partByPid;

    private ProcessCpu(Map<Long, Long> nanosByPid, Map<Long, Part> partByPid) {
        this.nanosByPid = nanosByPid;
        this.partByPid = partByPid;
    }

    static ProcessCpu sample() {
        Map<Long, Long> nanos = new HashMap<>();
        Map<Long, Part> parts = new HashMap<>();
        if (!Files.isDirectory(PROC)) {
            return new ProcessCpu(nanos, parts);
        }
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC, p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path dir : dirs) {
                long pid = Long.parseLong(dir.getFileName().toString());
                String stat;
                try {
                    stat = Files.readString(dir.resolve("stat"), StandardCharsets.US_ASCII);
                } catch (IOException gone) {
                    continue; // the process ended meanwhile
                }
                int open = stat.indexOf('(');
                int close = stat.lastIndexOf(')');
                Part part = pid == SELF ? Part.JVM : part(stat.substring(open + 1, close));
                if (part == null) {
                    continue;
                }
                // After the command: state, then fields 4 onwards; utime and stime are fields 14 and 15.
                String[] fields = stat.substring(close + 2).split(" ");
                long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
                nanos.put(pid, ticks * NANOS_PER_TICK);
                parts.put(pid, part);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + PROC, e);
        }
        return new ProcessCpu(nanos, parts);
    }

    /** CPU nanoseconds per part between {@code earlier} and this sample (a process started since counts whole). */
    Map<Part, Long> since(ProcessCpu earlier) {
        Map<Part, Long> out = new EnumMap<>(Part.class);
        nanosByPid.forEach((pid, nanos) -> out.merge(partByPid.get(pid),
                nanos - earlier.nanosByPid.getOrDefault(pid, 0L), Long::sum));
        return out;
    }

    private static Part part(String command) {
        return switch (command) {
            case "beam.smp" -> Part.RABBITMQ;
            case "redis-server" -> Part.REDIS;
            case "postgres" -> Part.POSTGRESQL;
            default -> null;
        };
    }

    private static long ticksPerSecond() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
            return p.waitFor() == 0 ? Long.parseLong(out) : 100;
        } catch (IOException | RuntimeException e) {
            return 100; // Linux's usual USER_HZ
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
