package io.github.once.examples.springorders;

import io.github.once.examples.orderflow.FakePaymentService;
import io.github.once.rabbitmq.Topology;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.QueueInformation;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The application as it ships (its {@code application.properties}), against the real RabbitMQ and PostgreSQL and
 * a payment service that charges once per idempotency key; only the queue (fresh), the payment service's address,
 * a short lease and short retry delays are the test's.
 */
@SpringBootTest(properties = {"once.lease=2s", "once.retry.backoff=100ms,200ms"})
class OrdersApplicationTest {
    static final String QUEUE = "spring-orders-" + UUID.randomUUID().toString().substring(0, 8);
    static final FakePaymentService PAYMENTS = startPayments();
    static final List<String> ORDER_IDS = new ArrayList<>();
    /** once.retry.backoff below: one delay queue each. */
    static final List<Duration> BACKOFF = List.of(Duration.ofMillis(100), Duration.ofMillis(200));

    @DynamicPropertySource
    static void services(DynamicPropertyRegistry r) {
        r.add("orders.queue", () -> QUEUE);
        r.add("payments.url", () -> PAYMENTS.uri().toString());
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
    void eachOrderSentTwiceIsPaidAndStoredOnceAndBothCopiesAreAcked() {
        List<Order> orders = new ArrayList<>();
        for (int i = 1; i <= 5; i++) {
            Order order = new Order("A-" + UUID.randomUUID().toString().substring(0, 8), "book", i, 1000L * i);
            orders.add(order);
            ORDER_IDS.add(order.orderId());
        }
        for (int copy = 0; copy < 2; copy++) { // a producer's re-send: the same message_id
            for (Order order : orders) {
                rabbit.convertAndSend("", QUEUE, order, m -> {
                    m.getMessageProperties().setMessageId(order.orderId());
                    return m;
                });
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> storedRows() == orders.size() && ready(QUEUE) == 0);

        // Stopping the listeners lets them finish the messages they hold; a message left unacknowledged would
        // go back to the queue when their channels close.
        listeners.stop();
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() -> ready(QUEUE) == 0);

        for (Order order : orders) {
            String id = order.orderId();
            assertThat(jdbc.queryForList("SELECT charge_id FROM shop_order WHERE order_id = ?", String.class, id))
                    .as("rows of %s", id).hasSize(1).allMatch(charge -> charge.startsWith("ch_"));
            assertThat(PAYMENTS.charged("order-" + id)).as("%s charged", id).isTrue();
        }
        assertThat(PAYMENTS.charges()).as("charges").isEqualTo(orders.size());
        assertThat(PAYMENTS.requests()).as("payment calls: the listener never ran for a duplicate")
                .isEqualTo(orders.size());
        assertThat(ready(Topology.deadLetterQueue(QUEUE))).as("dead letters").isZero();
        for (Duration delay : BACKOFF) {
            assertThat(ready(Topology.delayQueue(QUEUE, delay))).as("retries waiting").isZero();
        }
    }

    private int storedRows() {
        return storedRows(jdbc, ORDER_IDS);
    }

    private long ready(String queue) {
        return ready(admin, queue);
    }

    /** Rows of {@code shop_order} for the orders {@code ids}. */
    static int storedRows(JdbcTemplate jdbc, List<String> ids) {
        return jdbc.queryForObject("SELECT count(*) FROM shop_order WHERE order_id IN (" + placeholders(ids) + ")",
                Integer.class, ids.toArray());
    }

    /** Messages ready in {@code queue}; 0 when it does not exist. */
    static long ready(AmqpAdmin admin, String queue) {
        QueueInformation info = admin.getQueueInfo(queue);
        return info == null ? 0 : info.getMessageCount();
    }

    /** Deletes the rows of the orders {@code ids} and the records of namespace {@code queue}. */
    static void deleteRows(JdbcTemplate jdbc, List<String> ids, String queue) {
        if (!ids.isEmpty()) {
            jdbc.update("DELETE FROM shop_order WHERE order_id IN (" + placeholders(ids) + ")", ids.toArray());
        }
        jdbc.update("DELETE FROM once_record WHERE namespace = ?", queue); // this test's keys only
    }

    private static String placeholders(List<String> ids) {
        return String.join(", ", Collections.nCopies(ids.size(), "?"));
    }

    @AfterAll
    static void cleanUp(@Autowired RabbitListenerEndpointRegistry listeners, @Autowired AmqpAdmin admin,
                        @Autowired JdbcTemplate jdbc) {
        listeners.stop(); // before the queues go, so no consumer restarts on a missing queue
        deleteQueues(admin, QUEUE);
        deleteRows(jdbc, ORDER_IDS, QUEUE);
        PAYMENTS.close();
    }

    /** The work queue with its delay and dead-letter queues. */
    static void deleteQueues(AmqpAdmin admin, String queue) {
        admin.deleteQueue(queue);
        admin.deleteQueue(Topology.deadLetterQueue(queue));
        for (Duration delay : BACKOFF) {
            admin.deleteQueue(Topology.delayQueue(queue, delay));
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
