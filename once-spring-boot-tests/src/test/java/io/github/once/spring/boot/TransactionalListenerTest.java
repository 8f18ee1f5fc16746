package io.github.once.spring.boot;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.ProcessingLog;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spring.rabbit.Once;
import io.github.once.testkit.StoreCalls;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.AsyncConsumerRestartedEvent;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

import static io.github.once.spring.boot.Scenarios.message;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Transactional mode in Spring's own transaction, on the real PostgreSQL: a {@code @Transactional} listener
 * writes its effect with {@code JdbcTemplate}, and the record is written on the same connection. When the
 * connection dies before the commit, neither the effect nor the record survives (as once-jdbc's
 * {@code TransactionalIdempotencyTest#connectionBreakBeforeCommitLeavesNeither}); the message goes back, and
 * the second delivery has the effect once.
 */
@SpringBootTest(classes = TransactionalListenerTest.App.class, properties = {
        "spring.rabbitmq.host=127.0.0.1",
        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
        "spring.datasource.username=postgres",
        "once.store=jdbc",
        "once.lease=2s",
        "once.retry.max-attempts=3",
        "once.retry.backoff=30ms,60ms,120ms",
        "once.rabbit.store-backoff=200ms",
        "once.rabbit.max-store-backoff=800ms"})
class TransactionalListenerTest {
    static final String QUEUE = Scenarios.queueName("tx");
    static final String TABLE = "once_spring_" + UUID.randomUUID().toString().substring(0, 8);
    static final ListAppender<ILoggingEvent> LINES = new ListAppender<>();
    /** Consumers the container ended and started again (an exception left its listener call unwrapped). */
    static final AtomicInteger RESTARTS = new AtomicInteger();

    @DynamicPropertySource
    static void names(DynamicPropertyRegistry r) {
        r.add("scenario.tx", () -> QUEUE);
        r.add("once.jdbc.table", () -> TABLE + "_record");
        r.add("scenario.effects", () -> TABLE + "_effect");
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    @EnableTransactionManagement
    static class App {
        /** Attached as a bean: Boot sets logging up anew when the context starts, dropping appenders added before. */
        @Bean
        ListAppender<ILoggingEvent> processingLines() {
            Logger logger = (Logger) LoggerFactory.getLogger(ProcessingLog.LOGGER);
            LINES.start();
            logger.addAppender(LINES);
            return LINES;
        }

        @Bean
        ApplicationListener<AsyncConsumerRestartedEvent> restarts() {
            return event -> RESTARTS.incrementAndGet();
        }

        @Bean
        Orders orders(JdbcTemplate jdbc) {
            jdbc.execute("CREATE TABLE " + TABLE + "_effect (id varchar(200) NOT NULL)");
            return new Orders(jdbc);
        }
    }

    /** Writes the effect in the listener's transaction; kills its own connection on the first call if told to. */
    public static class Orders {
        final JdbcTemplate jdbc;
        final AtomicInteger calls = new AtomicInteger();
        final AtomicBoolean killNext = new AtomicBoolean();

        Orders(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        /** Through methods: the test holds the transactional proxy, whose own fields are empty. */
        public int calls() {
            return calls.get();
        }

        public void killNextConnection() {
            killNext.set(true);
        }

        @RabbitListener(queuesToDeclare = @Queue("${scenario.tx}"))
        @Once
        @Transactional
        public void handle(Message message) {
            calls.incrementAndGet();
            jdbc.update("INSERT INTO " + TABLE + "_effect (id) VALUES (?)",
                    message.getMessageProperties().getMessageId());
            if (killNext.compareAndSet(true, false)) {
                Integer pid = jdbc.queryForObject("SELECT pg_backend_pid()", Integer.class);
                try (var killer = new org.springframework.jdbc.datasource.DriverManagerDataSource(
                        "jdbc:postgresql://127.0.0.1:5432/test", "postgres", "").getConnection();
                     var st = killer.createStatement()) {
                    st.execute("SELECT pg_terminate_backend(" + pid + ")");
                } catch (java.sql.SQLException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
    }

    @Autowired
    RabbitTemplate template;
    @Autowired
    Orders orders;
    @Autowired
    JdbcTemplate jdbc;
    @Autowired
    IdempotencyStore store;
    @Autowired
    DataSource dataSource;

    @AfterAll
    static void cleanUp(@Autowired org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry listeners,
                        @Autowired AmqpAdmin admin, @Autowired JdbcTemplate jdbc) {
        listeners.stop(); // before the queues go, so no consumer is left to restart on a missing queue
        ((Logger) LoggerFactory.getLogger(ProcessingLog.LOGGER)).detachAppender(LINES);
        Scenarios.deleteAll(admin, QUEUE);
        jdbc.execute("DROP TABLE IF EXISTS " + TABLE + "_effect");
        jdbc.execute("DROP TABLE IF EXISTS " + TABLE + "_record");
    }

    private int effects(String id) {
        return jdbc.queryForObject("SELECT count(*) FROM " + TABLE + "_effect WHERE id = ?", Integer.class, id);
    }

    @Test
    void effectAndRecordCommitTogetherInTheListenersTransaction() {
        String id = "order-" + UUID.randomUUID();
        template.send("", QUEUE, message(id, "pay 10"));
        template.send("", QUEUE, message(id, "pay 10"));
        await().atMost(Duration.ofSeconds(10)).until(() -> effects(id) == 1 && StoreCalls.find(store, key(id)).isPresent());
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> effects(id) == 1);
    }

    @Test
    void connectionBreakBeforeCommitLeavesNeither() {
        String id = "order-" + UUID.randomUUID();
        int before = orders.calls();
        orders.killNextConnection();
        template.send("", QUEUE, message(id, "pay 20"));
        // The first run's insert and record died with its connection: the redelivery ran the listener again
        // (had the record survived, it would have been a duplicate) and left exactly one effect. The store failure
        // pauses the container first (a stop and a start), which takes seconds on a loaded machine; the wait says
        // where it stood if it runs out.
        try {
            await().atMost(Duration.ofSeconds(45)).untilAsserted(() -> {
                assertThat(StoreCalls.find(store, key(id))).as("the record of %s", id).isPresent();
                assertThat(orders.calls() - before).as("listener runs").isGreaterThanOrEqualTo(2);
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(e.getMessage() + RabbitCtl.diagnose(QUEUE), e);
        }
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(5)).until(() -> effects(id) == 1);
        // A lost connection is an outage that heals (WARN), even when Spring's rollback on the dead connection
        // failed too: not a store that refuses the work (ERROR).
        List<ILoggingEvent> pauses = List.copyOf(LINES.list).stream()
                .filter(e -> e.getFormattedMessage().startsWith("Consumption paused")).toList();
        // The message went back as the container's own failure: its consumer carried on until the pause stopped
        // it, and was not ended and restarted beside the pause's stop and start.
        assertThat(RESTARTS.get()).as("consumers the container restarted").isZero();
        assertThat(pauses).isNotEmpty().allSatisfy(e -> {
            assertThat(e.getLevel()).isEqualTo(Level.WARN);
            assertThat(e.getFormattedMessage()).contains("cannot be reached");
        });
    }

    private static IdempotencyKey key(String id) {
        return IdempotencyKey.of(QUEUE, id);
    }
}
