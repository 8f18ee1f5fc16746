package io.github.once.chaos;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A {@code redis-server} of its own on a spare port, writing every command to its append-only file before it
 * answers, so a SIGKILL loses nothing; {@link #killAndWipe()} then stands for a restart that lost its data.
 */
final class PrivateRedis implements AutoCloseable {

    private final Path dir;
    private final int port;
    private Process process;
    private boolean closed;

    PrivateRedis(Path dir, int port) {
        this.dir = dir;
        this.port = port;
    }

    int port() {
        return port;
    }

    synchronized void start() throws IOException {
        if (closed) {
            throw new IllegalStateException("the harness is stopping: Redis stays down");
        }
        Files.createDirectories(dir);
        process = new ProcessBuilder(List.of("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--dir", dir.toString(), "--appendonly", "yes", "--appendfsync", "always", "--save", "",
                "--maxmemory-policy", "noeviction", "--protected-mode", "no"))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("../redis.log").normalize().toFile()))
                .start();
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!answers()) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("redis-server on port " + port + " did not start; see redis.log");
            }
            Pause.millis(50);
        }
    }

    private boolean answers() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            s.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            byte[] reply = new byte[7];
            s.setSoTimeout(500);
            int n = s.getInputStream().read(reply);
            // While loading its file Redis answers -LOADING; only +PONG means ready.
            return n > 0 && reply[0] == '+';
        } catch (IOException e) {
            return false;
        }
    }

    /** SIGKILL, then the same files again: nothing acknowledged is lost. */
    synchronized void killAndRestart() throws IOException {
        kill();
        start();
    }

    /** SIGKILL, its files deleted, then an empty server: every record is gone. */
    synchronized void killAndWipe() throws IOException {
        kill();
        Shell.deleteTree(dir);
        start();
    }

    private void kill() {
        if (process != null) {
            Shell.kill9(process);
        }
    }

    synchronized void ensureRunning() throws IOException {
        if (process == null || !process.isAlive()) {
            start();
        }
    }

    @Override
    public synchronized void close() {
        closed = true; // a fault still running in another thread must not start it again
        kill();
    }
}
