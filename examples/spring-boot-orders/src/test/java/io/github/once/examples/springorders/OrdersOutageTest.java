package io.github.once.examples.springorders;

import io.github.once.examples.orderflow.FakePaymentService;
import io.github.once.testkit.FaultProxy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.init.ScriptUtils;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application started while PostgreSQL and RabbitMQ are both down (each behind a proxy that refuses every
 * connection), with its shipped properties but for the queue, the payment service, short waits, and
 * {@code spring.sql.init.mode=never}: the schema script needs the database at start, so this test runs it itself
 * first, as a first run with the database up would have. It starts, its listener takes nothing; RabbitMQ comes back and the orders are sent,
 * still nothing is stored; PostgreSQL comes back and each order, sent twice, is paid and stored once.
 */
@SpringBootTest(properties = {"once.lease=2s", "once.retry.backoff=100ms,200ms", "spring.sql.init.mode=never",
        "spring.datasource.hikari.connection-timeout=1000", "spring.rabbitmq.connection-timeout=1s"})
class OrdersOutageTest {
    static final String QUEUE = "spring-orders-down-" + UUID.randomUUID().toString().substring(0, 8);
    static final FaultProxy DATABASE = proxy(5432);
    static final FaultProxy BROKER = proxy(5672);
    static final FakePaymentService PAYMENTS = startPayments();
    static final List<String> ORDER_IDS = new ArrayList<>();

    @DynamicPropertySource
    static void services(DynamicPropertyRegistry r) throws SQLException {
        try (Connection c = DriverManager.getConnection("jdbc:postgresql://127.0.0.1:5432/test", "postgres", "")) {
            ScriptUtils.executeSqlScript(c, new ClassPathResource("schema.sql"));
        }
        DATABASE.block();
        BROKER.block();
        r.add("orders.queue", () -> QUEUE);
        r.add("payments.url", () -> PAYMENTS.uri().toString());
        r.add("spring.datasource.url", () -> "jdbc:postgresql://127.0.0.1:" + DATABASE.port() + "/test");
        r.add("spring.rabbitmq.port", () -> BROKER.port());
    }

    @Autowired
    RabbitTemplate rabbit;
    @Autowired
    AmqpAdmin admin;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    RabbitListenerEndpointRegistry listeners;

    @Test
    void startsWithTheDatabaseAndTheBrokerDownAndStoresEachOrderOnceWhenTheyAreBack() {
        // Started: the listener is held back while Once's store (PostgreSQL) does not answer.
        assertThat(listeners.getListenerContainers()).isNotEmpty().noneMatch(c -> c.isRunning());

        BROKER.restore();
        List<Order> orders = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            Order order = new Order("D-" + UUID.randomUUID().toString().substring(0, 8), "pen", i, 100L * i);
            orders.add(order);
            ORDER_IDS.add(order.orderId());
        }
        for (int copy = 0; copy < 2; copy++) {
            for (Order order : orders) {
                rabbit.convertAndSend("", QUEUE, order, m -> {
                    m.getMessageProperties().setMessageId(order.orderId());
                    return m;
                });
            }
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> ready(QUEUE) == 10);
        assertThat(PAYMENTS.requests()).as("payment calls while the database is down").isZero();

        DATABASE.restore();
        await().atMost(Duration.ofSeconds(30)).until(() -> storedRows() == orders.size() && ready(QUEUE) == 0);
        listeners.stop();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> ready(QUEUE) == 0);

        assertThat(storedRows()).isEqualTo(orders.size());
        assertThat(PAYMENTS.charges()).as("charges").isEqualTo(orders.size());
        assertThat(PAYMENTS.requests()).as("payment calls").isEqualTo(orders.size());
    }

    private int storedRows() {
        return OrdersApplicationTest.storedRows(jdbc, ORDER_IDS);
    }

    private long ready(String queue) {
        return OrdersApplicationTest.ready(admin, queue);
    }

    @AfterAll
    static void cleanUp(@Autowired RabbitListenerEndpointRegistry listeners, @Autowired AmqpAdmin admin,
                        @Autowired JdbcTemplate jdbc) throws IOException {
        DATABASE.restore();
        BROKER.restore();
        listeners.stop();
        OrdersApplicationTest.deleteQueues(admin, QUEUE);
        OrdersApplicationTest.deleteRows(jdbc, ORDER_IDS, QUEUE);
        PAYMENTS.close();
        DATABASE.close();
        BROKER.close();
    }

    private static FaultProxy proxy(int port) {
        try {
            return new FaultProxy("127.0.0.1", port);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static FakePaymentService startPayments() {
        try {
            return FakePaymentService.start(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
