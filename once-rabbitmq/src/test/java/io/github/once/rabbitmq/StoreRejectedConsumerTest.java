package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.RecordState;
import io.github.once.StoreFullException;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.spi.IdempotencyStore;
import io.github.once.testkit.StoreCalls;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * One record the store refuses must not stall the queue: its message goes to the dead-letter queue with reason
 * {@code store-rejected} and the error, the next messages are processed, and the consumer never pauses. Every
 * store, through a real consumer on the real broker: the in-memory store and Redis refuse through the executor's
 * result size limit (checked before any store call), the databases through a CHECK constraint on the result
 * column (SQLState class 23 on the record's own statement). A full store, by contrast, pauses the consumer.
 */
class StoreRejectedConsumerTest {

    private static final int MESSAGES = 10;
    private static final String POISON = "m-3";
    private static final int LIMIT = 64;

    enum Kind { IN_MEMORY, REDIS, POSTGRESQL, MARIADB, H2 }

    private final RabbitFixture rabbit = new RabbitFixture();
    private final String queue = rabbit.queue;
    private final String table = "once_rej_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private HikariDataSource pool;
    private Kind kind;

    @AfterEach
    void cleanUp() throws Exception {
        rabbit.close();
        if (pool != null) {
            try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE " + table);
            }
            pool.close();
        }
    }

    private IdempotencyStore store(Kind k) throws Exception {
        kind = k;
        switch (k) {
            case IN_MEMORY:
                return InMemoryIdempotencyStore.builder().build();
            case REDIS:
                return RedisIdempotencyStore.builder().uri("redis://127.0.0.1:6379")
                        .keyPrefix("once-rej-" + UUID.randomUUID().toString().substring(0, 8) + ":").build();
            default:
                return jdbc(k);
        }
    }

    private IdempotencyStore jdbc(Kind k) throws Exception {
        HikariConfig config = new HikariConfig();
        String check;
        switch (k) {
            case POSTGRESQL -> {
                config.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test");
                config.setUsername("postgres");
                check = "octet_length(result) <= " + LIMIT;
            }
            case MARIADB -> {
                config.setJdbcUrl("jdbc:mariadb://127.0.0.1:3306/test");
                config.setUsername("root");
                check = "LENGTH(result) <= " + LIMIT;
            }
            default -> {
                config.setJdbcUrl("jdbc:h2:mem:once_rejected;DB_CLOSE_DELAY=-1");
                config.setUsername("sa");
                check = "OCTET_LENGTH(result) <= " + LIMIT;
            }
        }
        config.setMaximumPoolSize(4);
        pool = new HikariDataSource(config);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool).tableName(table).createTableIfMissing(true)
                .build();
        try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
            // A rule of the user's schema the record breaks: the database refuses the completion's statement.
            st.execute("ALTER TABLE " + table + " ADD CONSTRAINT " + table + "_small CHECK (result IS NULL OR "
                    + check + ")");
        }
        return store;
    }

    /** The in-memory store and Redis refuse through the executor's limit; the databases by their constraint. */
    private IdempotencyConfig config() {
        IdempotencyConfig.Builder b = IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(10));
        return (kind == Kind.IN_MEMORY || kind == Kind.REDIS ? b.maxResultBytes(LIMIT) : b).build();
    }

    private static byte[] result(String id) {
        return (POISON.equals(id) ? "x".repeat(200) : "ok " + id).getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aRecordTheStoreRefusesIsDeadLetteredAndTheQueueGoesOn(Kind k) throws Exception {
        IdempotencyStore store = rabbit.track(store(k));
        Idempotency once = rabbit.track(Idempotency.builder(store).config(config()).build());
        RecordingListener heard = new RecordingListener();
        OnceConsumer consumer = rabbit.track(OnceConsumer.builder(rabbit.connect(), queue, once)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .retry(rabbit.remember(RetryPolicy.defaults()))
                .prefetch(5)
                .batchClaims(true)
                .listener(heard)
                .requestHandler((delivery, ctx) -> result(delivery.getProperties().getMessageId()))
                .build()
                .start());

        Channel ch = rabbit.admin();
        for (int i = 0; i < MESSAGES; i++) {
            ch.basicPublish("", queue, new AMQP.BasicProperties.Builder().messageId("m-" + i).build(),
                    ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
        }
        ch.close();

        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).until(() ->
                rabbit.messageCount(Topology.deadLetterQueue(queue)) == 1 && completed(store) == MESSAGES - 1
                        && consumer.inFlight() == 0);

        List<GetResponse> dead = rabbit.drain(Topology.deadLetterQueue(queue));
        assertThat(dead).hasSize(1);
        AMQP.BasicProperties props = dead.get(0).getProps();
        assertThat(props.getMessageId()).isEqualTo(POISON);
        assertThat(props.getHeaders().get(OnceHeaders.REASON).toString()).isEqualTo("store-rejected");
        assertThat(props.getHeaders().get(OnceHeaders.ERROR).toString()).contains("StoreRejectedException");
        assertThat(heard.pauses.get()).as("a refused record never pauses the consumer").isZero();
        assertThat(heard.count(ConsumerAction.DEAD_LETTERED)).isEqualTo(1);
        assertThat(StoreCalls.find(store, IdempotencyKey.of(queue, POISON)).map(r -> r.state() == RecordState.COMPLETED)
                .orElse(false)).as("the refused record was not completed").isFalse();
    }

    private int completed(IdempotencyStore store) {
        int n = 0;
        for (int i = 0; i < MESSAGES; i++) {
            if (StoreCalls.find(store, IdempotencyKey.of(queue, "m-" + i)).map(r -> r.state() == RecordState.COMPLETED)
                    .orElse(false)) {
                n++;
            }
        }
        return n;
    }

    @Test
    void aFullStorePausesTheConsumerAndSaysWhy() throws Exception {
        InMemoryIdempotencyStore full = InMemoryIdempotencyStore.builder().maxRecords(2).build();
        Idempotency once = rabbit.track(Idempotency.builder(full).build());
        List<Throwable> pauses = new CopyOnWriteArrayList<>();
        rabbit.track(OnceConsumer.builder(rabbit.connect(), queue, once)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .retry(rabbit.remember(RetryPolicy.defaults()))
                .listener(new ConsumerListener() {
                    @Override
                    public void onPause(Throwable cause, Duration backoff) {
                        pauses.add(cause);
                    }
                })
                .handler((delivery, ctx) -> { })
                .build()
                .start());

        Channel ch = rabbit.admin();
        for (int i = 0; i < 3; i++) {
            ch.basicPublish("", queue, new AMQP.BasicProperties.Builder().messageId("f-" + i).build(),
                    new byte[] {1});
        }
        ch.close();

        await().atMost(Duration.ofSeconds(30)).until(() -> !pauses.isEmpty());
        assertThat(pauses.get(0)).isInstanceOf(StoreFullException.class);
        assertThat(full.size()).isEqualTo(2);
        assertThat(rabbit.messageCount(Topology.deadLetterQueue(queue))).as("a full store is no reason to drop")
                .isZero();
    }
}
