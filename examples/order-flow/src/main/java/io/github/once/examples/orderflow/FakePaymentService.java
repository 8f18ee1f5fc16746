package io.github.once.examples.orderflow;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A payment API as real ones behave: {@code POST /charges} with an {@code Idempotency-Key} header charges once
 * per key and answers a repeat with the first charge's id. It can be told to "succeed but time out": record the
 * charge, then hold the response longer than the client waits, the trap in which a retry charges again unless
 * it sends the same key.
 */
public final class FakePaymentService implements AutoCloseable {

    private final HttpServer server;
    private final Map<String, String> chargeByKey = new ConcurrentHashMap<>();
    private final AtomicInteger charges = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();
    private final AtomicInteger slowResponses = new AtomicInteger();
    private volatile Duration slowness = Duration.ZERO;

    private FakePaymentService(HttpServer server) {
        this.server = server;
    }

    /** Starts the service on 127.0.0.1 and {@code port} (0 for any free port). */
    public static FakePaymentService start(int port) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        FakePaymentService service = new FakePaymentService(server);
        server.createContext("/charges", service::charge);
        server.setExecutor(Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "fake-payment");
            t.setDaemon(true);
            return t;
        }));
        server.start();
        return service;
    }

    public URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    /** The next {@code count} charges are recorded, then answered only after {@code delay}. */
    public void succeedButTimeOut(int count, Duration delay) {
        slowness = delay;
        slowResponses.set(count);
    }

    /** Charges made (one per distinct idempotency key). */
    public int charges() {
        return charges.get();
    }

    /** Charge requests received, repeats included. */
    public int requests() {
        return requests.get();
    }

    public boolean charged(String idempotencyKey) {
        return chargeByKey.containsKey(idempotencyKey);
    }

    private void charge(HttpExchange exchange) throws IOException {
        try (exchange) {
            requests.incrementAndGet();
            String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
            if (!"POST".equals(exchange.getRequestMethod()) || key == null || key.isEmpty()) {
                respond(exchange, 400, "an Idempotency-Key header is required");
                return;
            }
            exchange.getRequestBody().readAllBytes();
            String chargeId = chargeByKey.computeIfAbsent(key, k -> "ch_" + charges.incrementAndGet());
            if (slowResponses.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                try {
                    Thread.sleep(slowness.toMillis()); // the charge is made; the answer comes too late
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            respond(exchange, 200, chargeId);
        }
    }

    private static void respond(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
