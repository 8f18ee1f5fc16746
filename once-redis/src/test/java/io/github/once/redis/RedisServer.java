package io.github.once.redis;

import io.github.once.StoreUnavailableException;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * A private redis-server process on a spare local port, in a temporary directory, without persistence: for tests
 * that must reconfigure, pause or stop a Redis (the shared one on 6379 is never touched that way).
 */
final class RedisServer implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path dir;

    private RedisServer(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    /** Starts a server with {@code extra} redis-server arguments and waits until it answers. */
    static RedisServer start(String... extra) {
        return start(spareRedisPort(false), extra);
    }

    static RedisServer start(int port, String... extra) {
        return start(port, false, extra);
    }

    /**
     * Starts a server that speaks TLS only, on a spare port, with the given PEM files; ready once its log says so
     * (a plain PING cannot tell).
     */
    static RedisServer startTls(Path cert, Path key) {
        int port = spareRedisPort(false);
        return start(port, true, "--port", "0", "--tls-port", Integer.toString(port), "--tls-cert-file",
                cert.toString(), "--tls-key-file", key.toString(), "--tls-ca-cert-file", cert.toString(),
                "--tls-auth-clients", "no");
    }

    private static RedisServer start(int port, boolean tls, String... extra) {
        Path dir;
        try {
            dir = Files.createTempDirectory("once-redis-" + port + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString(),
                "--daemonize", "no", "--logfile", dir.resolve("redis.log").toString()));
        command.addAll(List.of(extra));
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start redis-server (is it installed and on PATH?)", e);
        }
        RedisServer server = new RedisServer(process, port, dir);
        try {
            await("redis-server on port " + port).atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException("redis-server on port " + port + " exited: "
                                    + server.log());
                        }
                        return tls ? server.log().contains("Ready to accept connections") : server.answersPing();
                    });
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    int port() {
        return port;
    }

    /**
     * Builds a store on a server that answers PING, trying again while the build times out: on a loaded machine
     * the connection's handshake can take longer than a test's short store timeout, which the test needs short
     * only for the calls it makes afterwards.
     */
    static RedisIdempotencyStore connect(RedisIdempotencyStore.Builder builder) {
        RedisIdempotencyStore store = builder.build(); // builds while Redis is down; the first call connects
        await("a store connection").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsInstanceOf(StoreUnavailableException.class).until(() -> {
                    store.verify();
                    return true;
                });
        return store;
    }

    Path dir() {
        return dir;
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Freezes the process (SIGSTOP): connections stay open, nothing is answered. */
    void pause() {
        signal("-STOP");
    }

    /** Lets a paused process go on (SIGCONT). */
    void resume() {
        signal("-CONT");
    }

    /** Whether something answers a RESP PING on the port (an error reply such as NOAUTH counts). */
    boolean answersPing() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            int first = socket.getInputStream().read();
            return first == '+' || first == '-';
        } catch (IOException e) {
            return false;
        }
    }

    /** Runs redis-cli against this server and returns its output. */
    String cli(String... args) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
        command.addAll(List.of(args));
        return run(command);
    }

    static String run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] out;
            try (InputStream in = p.getInputStream()) {
                out = in.readAllBytes();
            }
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("timed out: " + command);
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new IllegalStateException(command + " exited " + p.exitValue() + ": " + text);
            }
            return text;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    String log() {
        try {
            Path log = dir.resolve("redis.log");
            return Files.exists(log) ? Files.readString(log) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    private void signal(String signal) {
        run(List.of("kill", signal, Long.toString(process.pid())));
    }

    /** Stops the process (resuming it first if paused) and removes its directory. */
    @Override
    public void close() {
        if (process.isAlive()) {
            signal("-CONT");
            process.destroy();
            try {
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // A leftover temp directory is harmless.
        }
    }

    /**
     * A port that is free now, from a range away from the usual service ports. For cluster nodes the bus port
     * (port + 10000) must be free too.
     */
    static int spareRedisPort(boolean withBusPort) {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(21000, 29000);
            if (free(port) && (!withBusPort || free(port + 10000))) {
                return port;
            }
        }
        throw new IllegalStateException("no spare port found for a private redis-server");
    }

    private static boolean free(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress("127.0.0.1", port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
