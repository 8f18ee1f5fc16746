package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.TieredIdempotencyStore;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.redis.RedisIdempotencyStore;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A consumer with batch claims over a tiered store (the real Redis in front of the real PostgreSQL): while a batch
 * runs, the deliveries queued behind it are read from the front ahead of their claims, and those claims take the
 * answers. Every message's effect happens once, and a second round of the same messages is answered by the front.
 */
class TieredLookAheadConsumerTest {

    private static final int MESSAGES = 60;

    private final RabbitFixture rabbit = new RabbitFixture();
    private final String table = "once_ahead_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    private HikariDataSource pool;

    @AfterEach
    void cleanUp() throws Exception {
        rabbit.close();
        if (pool != null) {
            try (Connection c = pool.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + table);
            }
            pool.close();
        }
    }

    private TieredIdempotencyStore tieredStore() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:postgresql://127.0.0.1:5432/test");
        config.setUsername("postgres");
        config.setMaximumPoolSize(4);
        pool = new HikariDataSource(config);
        JdbcIdempotencyStore records = JdbcIdempotencyStore.builder(pool).tableName(table)
                .createTableIfMissing(true).build();
        RedisIdempotencyStore front = RedisIdempotencyStore.builder().uri("redis://127.0.0.1:6379")
                .keyPrefix("once-ahead-" + UUID.randomUUID().toString().substring(0, 8) + ":").build();
        return TieredIdempotencyStore.of(front, records);
    }

    /** A consumer taking batches of 10 out of 60 in hand, so that batches wait behind the one running. */
    private OnceConsumer consume(Idempotency once) throws Exception {
        return rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, once)
                .topology(Topology.declareAll(QueueType.CLASSIC))
                .retry(rabbit.remember(RetryPolicy.defaults()))
                .prefetch(MESSAGES)
                .batchClaims(true)
                .maxBatch(10)
                .requestHandler((delivery, ctx) -> {
                    String id = delivery.getProperties().getMessageId();
                    effects.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                    return ("done " + id).getBytes(StandardCharsets.UTF_8);
                })
                .build()
                .start());
    }

    private void publishAll() throws Exception {
        Channel ch = rabbit.admin();
        for (int i = 0; i < MESSAGES; i++) {
            ch.basicPublish("", rabbit.queue, new AMQP.BasicProperties.Builder().messageId("m-" + i).build(),
                    ("{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));
        }
        ch.close();
    }

    private void awaitAllSettled(OnceConsumer consumer) {
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50)).until(() ->
                rabbit.messageCount(rabbit.queue) == 0 && consumer.inFlight() == 0);
    }

    @Test
    void queuedDeliveriesAreReadAheadAndEachEffectHappensOnce() throws Exception {
        TieredIdempotencyStore tiered = rabbit.track(tieredStore());
        Idempotency once = rabbit.track(Idempotency.builder(tiered)
                .config(IdempotencyConfig.custom().leaseDuration(Duration.ofSeconds(10))
                        .retention(Duration.ofMinutes(10)).build()).build()); // its Redis keys expire soon after

        consume(once).close(); // declares the queue
        publishAll(); // before the consumer starts: its first batch runs while the other 50 wait in hand
        OnceConsumer first = consume(once);
        awaitAllSettled(first);
        first.close();

        assertThat(effects).hasSize(MESSAGES);
        assertThat(effects.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        long takenFirst = tiered.readAheadTaken();
        assertThat(takenFirst).as("claims that took an answer read ahead").isPositive();
        assertThat(tiered.frontHits()).as("new keys: nothing for the front to answer").isZero();

        await().atMost(Duration.ofSeconds(10)).until(() -> tiered.copiesInFlight() == 0);
        assertThat(tiered.copiesSkipped()).isZero();
        publishAll();
        OnceConsumer second = consume(once);
        awaitAllSettled(second);

        assertThat(effects.values()).as("the second round ran no handler").allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(tiered.frontHits()).as("every duplicate answered by the front").isEqualTo(MESSAGES);
        assertThat(tiered.readAheadTaken()).as("some of them from a read ahead").isGreaterThan(takenFirst);
    }
}
