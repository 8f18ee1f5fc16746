package io.github.once.rabbitmq;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/** A redis-server of the test's own on a spare port, with no persistence, to stop and start at will. */
final class PrivateRedis implements AutoCloseable {
    final int port;
    private Process process;

    PrivateRedis() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    void start() throws IOException {
        process = new ProcessBuilder("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no")
                .redirectErrorStream(true)
                .redirectOutput(new File(System.getProperty("java.io.tmpdir"), "once-redis-" + port + ".log"))
                .start();
        await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50)).until(this::answersPing);
    }

    /** Kills the server at once, like a crash. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("redis-server on port " + port + " did not die");
        }
    }

    /** Ready when it answers a RESP PING, not merely when its port accepts connections. */
    private boolean answersPing() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            s.setSoTimeout(500);
            OutputStream out = s.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return s.getInputStream().read() == '+';
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            kill();
        }
    }
}
