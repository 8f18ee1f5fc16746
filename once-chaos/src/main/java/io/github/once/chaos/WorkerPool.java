package io.github.once.chaos;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The consumer processes of one run: real JVMs on the harness's classpath, killed with SIGKILL and started again
 * after a pause. Each start is a new incarnation with its own name ({@code w2.3}: worker 2, third start), so an
 * effect names the very process that made it.
 */
final class WorkerPool implements AutoCloseable {

    private final List<String> baseCommand;
    private final String role;
    private final Path logDir;
    private final Slot[] slots;
    private final ScheduledExecutorService restarts = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "worker-restarts");
        t.setDaemon(true);
        return t;
    });
    private volatile boolean closed;
    private int unexpectedExits;

    private static final class Slot {
        Process process;
        int incarnation;
        String name;
        boolean killedOnPurpose;
    }

    /**
     * @param baseCommand {@code java ... Worker --mode ...} without {@code --worker}
     * @param role        {@code worker} or {@code relay}: the logs' names ({@code relay-2.log}) and the processes'
     *                    ({@code r2.3})
     */
    WorkerPool(List<String> baseCommand, String role, Path logDir, int size) {
        this.baseCommand = baseCommand;
        this.role = role;
        this.logDir = logDir;
        this.slots = new Slot[size];
        for (int i = 0; i < size; i++) {
            slots[i] = new Slot();
        }
    }

    static List<String> javaCommand(String mainClass, String classpath) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ArrayList<>(List.of(java, "-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-cp", classpath, mainClass));
    }

    synchronized void startAll() throws IOException {
        for (int i = 0; i < slots.length; i++) {
            start(i);
        }
    }

    private synchronized void start(int index) throws IOException {
        Slot slot = slots[index];
        slot.incarnation++;
        slot.name = role.charAt(0) + Integer.toString(index + 1) + "." + slot.incarnation;
        slot.killedOnPurpose = false;
        List<String> command = new ArrayList<>(baseCommand);
        command.add("--worker");
        command.add(slot.name);
        slot.process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logDir.resolve(role + "-" + (index + 1) + ".log").toFile()))
                .start();
    }

    /** SIGKILL now; a new incarnation starts after {@code downMillis}. Returns the killed incarnation's name. */
    synchronized String kill(int index, long downMillis) {
        Slot slot = slots[index];
        String name = slot.name;
        slot.killedOnPurpose = true;
        Process killed = slot.process;
        killed.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no goodbye to the broker
        restarts.schedule(() -> {
            synchronized (this) {
                if (!closed && slot.process == killed) { // not restarted by ensureAllAlive meanwhile
                    try {
                        awaitExit(killed);
                        start(index);
                    } catch (IOException e) {
                        System.err.println("could not restart " + role + " " + (index + 1) + ": " + e);
                    }
                }
            }
        }, downMillis, TimeUnit.MILLISECONDS);
        return name;
    }

    /** Restarts any worker that is not running (and counts the ones that died without being killed). */
    synchronized void ensureAllAlive() throws IOException {
        for (int i = 0; i < slots.length; i++) {
            Slot slot = slots[i];
            if (slot.process != null && !slot.process.isAlive()) {
                if (!slot.killedOnPurpose) {
                    unexpectedExits++;
                    System.err.println(role + " " + slot.name + " exited by itself with " + slot.process.exitValue());
                }
                start(i);
            }
        }
    }

    synchronized int unexpectedExits() {
        return unexpectedExits;
    }

    private static void awaitExit(Process p) {
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Asks each worker to stop (SIGTERM: its consumer closes), then kills what is left. */
    @Override
    public void close() {
        List<Process> running = new ArrayList<>();
        synchronized (this) {
            closed = true;
            for (Slot slot : slots) {
                if (slot.process != null && slot.process.isAlive()) {
                    slot.process.destroy();
                    running.add(slot.process);
                }
            }
        }
        restarts.shutdownNow();
        for (Process p : running) {
            awaitExit(p);
            p.destroyForcibly();
            awaitExit(p);
        }
    }
}
