package io.github.once.examples.orderflow;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The order flow against the real RabbitMQ, Redis and PostgreSQL, with consumers in processes of their own: every
 * order is sent twice, and the first consumer process dies (halted, as by kill -9) right after an order's
 * payment. Stock, payment and notification each happen once per order.
 */
class OrderFlowCrashTest {

    private final String tables = "flow" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final List<Process> processes = new ArrayList<>();
    private FakePaymentService payment;
    private OrderFlowApp app;

    @AfterEach
    void tearDown() throws Exception {
        for (Process p : processes) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (app != null) {
            app.shop().dropTables();
            try (com.rabbitmq.client.Channel ch = newChannel()) {
                ch.queueDelete(tables);
                ch.queueDelete(io.github.once.rabbitmq.Topology.deadLetterQueue(tables));
            }
            app.close();
        }
        if (payment != null) {
            payment.close();
        }
    }

    private static com.rabbitmq.client.Channel newChannel() throws Exception {
        com.rabbitmq.client.ConnectionFactory f = new com.rabbitmq.client.ConnectionFactory();
        f.setUri("amqp://guest:guest@127.0.0.1:5672");
        return f.newConnection("order-flow-cleanup").createChannel();
    }

    /** Starts {@code OrderFlowApp consume} in a JVM of its own and waits until it takes deliveries. */
    private Process consumer(String... extra) throws Exception {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"),
                OrderFlowApp.class.getName(), "consume",
                "tables=" + tables, "queue=" + tables, "payment=" + payment.uri()));
        command.addAll(List.of(extra));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        processes.add(process);
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = out.readLine()) != null; ) {
                    if (line.contains(OrderFlowApp.READY)) {
                        ready.complete(null);
                    }
                }
            } catch (java.io.IOException ignored) {
                // the process died: its output ends
            }
            ready.completeExceptionally(new IllegalStateException("consumer process ended before it was ready"));
        });
        reader.setDaemon(true);
        reader.start();
        ready.get(60, TimeUnit.SECONDS);
        return process;
    }

    @Test
    @DisplayName("each order sent twice, a consumer process killed after a payment: stock, payment and notification happen once")
    void crashAfterPaymentAndDuplicates() throws Exception {
        payment = FakePaymentService.start(0);
        app = new OrderFlowApp(Map.of("tables", tables, "queue", tables));
        app.shop().stock("book", 10);
        app.shop().stock("pen", 10);
        List<Order> orders = List.of(
                new Order("order-1", Map.of("book", 1), 1500),
                new Order("order-2", Map.of("book", 2, "pen", 3), 4200),
                new Order("order-3", Map.of("pen", 1), 300));

        Process doomed = consumer("crash-after-payment=order-2");
        for (Order order : orders) {
            app.send(order);
            app.send(order);
        }
        assertThat(doomed.waitFor(60, TimeUnit.SECONDS)).as("the consumer died after order-2's payment").isTrue();
        assertThat(doomed.exitValue()).isEqualTo(137);
        assertThat(payment.charged(tables + ":order-2:payment")).as("order-2 was charged before the crash").isTrue();

        consumer();
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
            for (Order order : orders) {
                if (!"completed".equals(app.shop().status(order.id()))) {
                    return false;
                }
            }
            return true;
        });

        assertThat(app.shop().quantity("book")).isEqualTo(10 - 1 - 2);
        assertThat(app.shop().quantity("pen")).isEqualTo(10 - 3 - 1);
        assertThat(payment.charges()).as("one charge per order").isEqualTo(3);
        for (Order order : orders) {
            assertThat(app.shop().notifications(order.id())).as("notifications of %s", order.id()).isEqualTo(1);
        }
        assertThat(payment.requests()).as("order-2's payment was asked twice: before the crash and after")
                .isGreaterThanOrEqualTo(4);
    }
}
