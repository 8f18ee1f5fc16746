package io.github.once.examples.orderflow;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.github.once.Idempotency;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.OncePublisher;
import io.github.once.rabbitmq.OutboundMessage;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.tiered.TieredIdempotencyStore;

import java.net.URI;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Runs the order flow. {@code consume} starts one consumer and runs until it is killed; {@code demo} stocks a
 * shop, starts a consumer and a fake payment service, sends three orders twice each and prints what happened.
 *
 * <pre>
 * OrderFlowApp demo    [option=value ...]
 * OrderFlowApp consume [option=value ...]
 *   amqp=amqp://guest:guest@127.0.0.1:5672   redis=redis://127.0.0.1:6379
 *   jdbc=jdbc:postgresql://127.0.0.1:5432/test?user=postgres   queue=orders   tables=shop
 *   payment=http://127.0.0.1:PORT (consume only; demo starts its own)   crash-after-payment=ORDER-ID
 * </pre>
 */
public final class OrderFlowApp implements AutoCloseable {

    /** Printed once the consumer takes deliveries. */
    public static final String READY = "order-flow ready";

    private final HikariDataSource pool;
    private final TieredIdempotencyStore store;
    private final Idempotency once;
    private final Connection connection;
    private final Shop shop;
    private final String queue;
    private OnceConsumer consumer;

    public OrderFlowApp(Map<String, String> options) throws Exception {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(options.getOrDefault("jdbc", "jdbc:postgresql://127.0.0.1:5432/test?user=postgres"));
        config.setMaximumPoolSize(8);
        this.pool = new HikariDataSource(config);
        String tables = options.getOrDefault("tables", "shop");
        this.shop = new Shop(pool, tables);
        shop.createTables();
        JdbcIdempotencyStore records = JdbcIdempotencyStore.builder(pool).tableName(tables + "_once")
                .createTableIfMissing(true).build();
        RedisIdempotencyStore front = RedisIdempotencyStore.builder()
                .uri(options.getOrDefault("redis", "redis://127.0.0.1:6379"))
                .keyPrefix(RedisIdempotencyStore.DEFAULT_KEY_PREFIX + tables + ":")
                .build();
        this.store = TieredIdempotencyStore.builder(front, records).build();
        // Claims ask Redis first; the handler's writes, its steps and the record commit in one transaction.
        this.once = Idempotency.builder(store).transactional().build();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(options.getOrDefault("amqp", "amqp://guest:guest@127.0.0.1:5672"));
        this.connection = factory.newConnection("order-flow");
        this.queue = options.getOrDefault("queue", "orders");
    }

    public Shop shop() {
        return shop;
    }

    public TieredIdempotencyStore store() {
        return store;
    }

    public OrderFlowApp start(PaymentClient payments, Consumer<Order> afterPayment) throws Exception {
        consumer = OnceConsumer.builder(connection, queue, once)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .retry(RetryPolicy.builder().maxAttempts(5).backoff(Duration.ofMillis(200), Duration.ofSeconds(1)).build())
                .handler(new OrderFlow(shop, payments, afterPayment))
                .build()
                .start();
        return this;
    }

    public void send(Order order) throws Exception {
        shop.place(order);
        try (OncePublisher publisher = OncePublisher.builder(connection).build()) {
            publisher.publish(OutboundMessage.of("", queue, order.toBytes()).withMessageId(order.id()));
        }
    }

    @Override
    public void close() throws Exception {
        if (consumer != null) {
            consumer.close();
        }
        connection.close();
        once.close();
        store.close();
        pool.close();
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || !List.of("demo", "consume").contains(args[0])) {
            System.err.println("usage: OrderFlowApp demo|consume [option=value ...] (see the README)");
            System.exit(2);
        }
        Map<String, String> options = new HashMap<>();
        for (int i = 1; i < args.length; i++) {
            int eq = args[i].indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("not option=value: " + args[i]);
            }
            options.put(args[i].substring(0, eq), args[i].substring(eq + 1));
        }
        if (args[0].equals("consume")) {
            consume(options);
        } else {
            demo(options);
        }
    }

    private static void consume(Map<String, String> options) throws Exception {
        String crashAfter = options.get("crash-after-payment");
        PaymentClient payments = new PaymentClient(URI.create(options.get("payment")), Duration.ofSeconds(2));
        OrderFlowApp app = new OrderFlowApp(options);
        app.start(payments, order -> {
            if (order.id().equals(crashAfter)) {
                System.out.println("crashing after the payment of " + order.id());
                System.out.flush();
                Runtime.getRuntime().halt(137); // no clean-up, no ack, no commit: as a kill -9 would
            }
        });
        System.out.println(READY);
        System.out.flush();
        Thread.currentThread().join(); // until the process is killed
    }

    private static void demo(Map<String, String> options) throws Exception {
        String prefix = "demo" + Long.toHexString(System.nanoTime() & 0xffffff);
        options.putIfAbsent("tables", prefix);
        options.putIfAbsent("queue", prefix + "-orders");
        try (FakePaymentService payment = FakePaymentService.start(0);
             OrderFlowApp app = new OrderFlowApp(options)) {
            app.shop().stock("book", 10);
            app.shop().stock("pen", 10);
            app.start(new PaymentClient(payment.uri(), Duration.ofSeconds(2)), order -> { });
            List<Order> orders = List.of(
                    new Order("order-1", Map.of("book", 1), 1500),
                    new Order("order-2", Map.of("book", 2, "pen", 3), 4200),
                    new Order("order-3", Map.of("pen", 1), 300));
            for (Order order : orders) {
                app.send(order);
            }
            waitUntil(() -> orders.stream().allMatch(o -> "completed".equals(status(app, o))));
            // Re-sends of completed orders (the same message ids): each is answered from the record Redis holds.
            for (Order order : orders) {
                app.send(order);
            }
            waitUntil(() -> app.store().frontHits() >= orders.size());
            for (Order order : orders) {
                System.out.printf("%s: %s, notifications %d%n", order.id(), status(app, order),
                        app.shop().notifications(order.id()));
            }
            System.out.println("stock: " + app.shop().stockLevels("book", "pen") + " (was book=10, pen=10)");
            System.out.println("charges: " + payment.charges() + " for " + orders.size() + " orders, "
                    + payment.requests() + " requests");
            System.out.println("duplicates answered by Redis: " + app.store().frontHits());
            app.shop().dropTables();
        }
    }

    /** Polls {@code done} every 100 ms for at most 30 s; the output then shows where it stood. */
    private static void waitUntil(java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
    }

    private static String status(OrderFlowApp app, Order order) {
        try {
            return app.shop().status(order.id());
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
