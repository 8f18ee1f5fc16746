package io.github.once.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs the machine's tools (rabbitmqctl, pg_ctl, ...) with a time limit, as another user where they need it. */
final class Shell {

    /** What a finished command printed, and how it ended. */
    record Result(int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    private Shell() {
    }

    /** The command as {@code user}, with {@code env} set (runuser keeps what env passes). */
    static List<String> asUser(String user, Map<String, String> env, List<String> command) {
        List<String> full = new ArrayList<>(List.of("runuser", "-u", user, "--", "env"));
        env.forEach((k, v) -> full.add(k + "=" + v));
        full.addAll(command);
        return full;
    }

    static Result run(List<String> command, long timeoutSeconds) {
        Path out = null;
        try {
            out = Files.createTempFile("once-chaos-cmd", ".txt");
            out.toFile().deleteOnExit(); // also when the harness is stopped in the middle of the command
            Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                return new Result(-1, "timed out after " + timeoutSeconds + " s: " + String.join(" ", command));
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            return new Result(-1, "could not run " + String.join(" ", command) + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Result(-1, "interrupted: " + String.join(" ", command));
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException ignored) {
                    // a temp file of a few bytes
                }
            }
        }
    }

    /** Runs it and fails loudly when it does not succeed. */
    static String check(List<String> command, long timeoutSeconds) {
        Result r = run(command, timeoutSeconds);
        if (!r.ok()) {
            throw new IllegalStateException("command failed (" + r.exitCode() + "): " + String.join(" ", command)
                    + "\n" + r.output());
        }
        return r.output();
    }

    /** SIGKILL (on Linux) to a server this harness started, and its end awaited: no shutdown, no flush. */
    static void kill9(Process process) {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGKILL to a process that is not our child (a broker's VM), by its id. */
    static void kill9(long pid) {
        ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }

    static void deleteTree(Path root) {
        if (root == null || !Files.exists(root)) {
            return;
        }
        run(List.of("rm", "-rf", root.toString()), 60);
    }
}
