package io.github.once.micrometer;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.awaitility.Awaitility.await;

/**
 * A private Prometheus for one test: a spare port, its own config and data directory, scraping one target and
 * evaluating the given rules every second. Stopped and deleted on close; never the system's service on 9090.
 */
final class PrometheusServer implements AutoCloseable {

    private final Path dir;
    private final Process process;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private PrometheusServer(Path dir, Process process, int port) {
        this.dir = dir;
        this.process = process;
        this.port = port;
    }

    static PrometheusServer start(String target, String rules) throws IOException {
        Path dir = Files.createTempDirectory("once-prometheus-");
        Files.writeString(dir.resolve("rules.yml"), rules);
        Files.writeString(dir.resolve("prometheus.yml"), """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                  evaluation_interval: 1s
                rule_files:
                  - rules.yml
                scrape_configs:
                  - job_name: once
                    static_configs:
                      - targets: ['%s']
                """.formatted(target));
        int port = sparePort();
        Process process = new ProcessBuilder(AlertRulesTest.executable("prometheus"),
                "--config.file=" + dir.resolve("prometheus.yml"),
                "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn")
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("prometheus.log").toFile())
                .start();
        PrometheusServer server = new PrometheusServer(dir, process, port);
        try {
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).until(server::ready);
        } catch (RuntimeException | Error e) {
            String log = Files.exists(dir.resolve("prometheus.log")) ? Files.readString(dir.resolve("prometheus.log")) : "";
            server.close();
            throw new AssertionError("Prometheus did not become ready:\n" + log, e);
        }
        return server;
    }

    private static int sparePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private boolean ready() {
        if (!process.isAlive()) {
            throw new IllegalStateException("Prometheus exited with " + process.exitValue());
        }
        try {
            return get("/-/ready").statusCode() == 200;
        } catch (IOException e) {
            return false;
        }
    }

    /** The JSON answer of an instant query; the status says whether Prometheus could evaluate it. */
    HttpResponse<String> query(String promql) throws IOException {
        return get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
    }

    /** The JSON list of active alerts (pending and firing). */
    String alerts() throws IOException {
        return get("/api/v1/alerts").body();
    }

    private HttpResponse<String> get(String path) throws IOException {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).GET().build();
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    @Override
    public void close() throws IOException {
        ProcessHandle handle = process.toHandle();
        handle.destroy();
        try {
            handle.onExit().orTimeout(10, TimeUnit.SECONDS).exceptionally(timeout -> {
                handle.destroyForcibly();
                return handle;
            }).join();
        } finally {
            deleteTree(dir);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(root)) {
            paths = walk.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path p : paths) {
            Files.deleteIfExists(p);
        }
    }
}
