package io.github.once.spring.boot;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.awaitility.Awaitility.await;

/** A redis-server of the test's own on a spare port, without persistence, that the test stops and restarts. */
final class RedisServer implements AutoCloseable {
    final int port;
    private Process process;

    RedisServer() throws IOException {
        port = Scenarios.portWithNothingListening();
    }

    RedisServer start() throws IOException {
        process = new ProcessBuilder("redis-server", "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no")
                .redirectErrorStream(true)
                .redirectOutput(new File(System.getProperty("java.io.tmpdir"), "once-spring-redis-" + port + ".log"))
                .start();
        await().atMost(Duration.ofSeconds(10)).until(this::accepts);
        return this;
    }

    void stop() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("redis-server on port " + port + " did not stop");
        }
    }

    private boolean accepts() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            stop();
        }
    }
}
