package io.github.once.tls;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * What the tests' private servers share: one stop, on {@link #close()} or at the test JVM's exit when a test never
 * got there, after which the server's folder is deleted whatever the stop did; the check that a port is free
 * before a start; and commands that fail with their output. Shared with other modules' tests through this
 * module's test jar.
 */
public abstract class PrivateServer implements AutoCloseable {
    /** The server's own folder: its data, logs and copies of its certificates. */
    protected final Path dir;
    private final Thread shutdownHook = new Thread(this::stop, getClass().getSimpleName() + "-stop");
    private boolean stopped;

    protected PrivateServer(Path dir) {
        this.dir = dir;
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** Stops the server's processes; best effort, since its folder goes next anyway. */
    protected abstract void stopServer();

    @Override
    public final void close() {
        stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is already shutting down, and the hook runs stop() itself
        }
    }

    private synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            stopServer();
        } catch (RuntimeException e) {
            System.err.println("could not stop " + getClass().getSimpleName() + ": " + e.getMessage());
        } finally {
            try {
                run(List.of("rm", "-rf", dir.toString()));
            } catch (RuntimeException e) {
                System.err.println("could not delete " + dir + ": " + e.getMessage());
            }
        }
    }

    /** Fails loudly when {@code port} on 127.0.0.1 is taken; {@code leftRunning} says what may hold it. */
    protected static void requireFree(int port, String leftRunning) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", port));
        } catch (IOException e) {
            throw new IllegalStateException("port " + port + " on 127.0.0.1 is taken (" + leftRunning + "): "
                    + e.getMessage(), e);
        }
    }

    protected static String run(List<String> command) {
        return run(command, () -> "");
    }

    /**
     * Runs {@code command} for at most 2 minutes and returns its output; fails with the output, and {@code more}
     * (a server log's tail, say), when it times out or exits with an error.
     */
    protected static String run(List<String> command, Supplier<String> more) {
        try {
            Path out = Files.createTempFile("once-private-server-cmd", ".txt");
            try {
                Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IllegalStateException("timed out: " + String.join(" ", command));
                }
                String output = Files.readString(out);
                if (p.exitValue() != 0) {
                    throw new IllegalStateException("failed (" + p.exitValue() + "): " + String.join(" ", command)
                            + "\n" + output + more.get());
                }
                return output;
            } finally {
                Files.deleteIfExists(out);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: " + String.join(" ", command), e);
        }
    }
}
