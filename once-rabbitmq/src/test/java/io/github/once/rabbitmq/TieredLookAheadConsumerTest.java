package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.TieredIdempotencyStore;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.spi.RecordCopy;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A consumer with batch claims over a tiered store (the real Redis in front of the real PostgreSQL): while a batch
 * runs, the deliveries queued behind it are read from the front ahead of their claims (a read asks for more keys
 * than a batch holds), and those claims take the answers. Every message's effect happens once, and a second round of the same messages is answered by the front.
 */
class TieredLookAheadConsumerTest {

    private static final int MESSAGES = 60;
    private static final int BATCH = 10;

    private final RabbitFixture rabbit = new RabbitFixture();
    private final String table = "once_ahead_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    private final List<Integer> readSizes = new CopyOnWriteArrayList<>();
    private final AtomicBoolean firstHandler = new AtomicBoolean();
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

    /** The Redis store, passed through; it notes how many keys each asynchronous read asks for. */
    private static final class NotingFront extends ForwardingStore {
        private final List<Integer> readSizes;

        NotingFront(RedisIdempotencyStore redis, List<Integer> readSizes) {
            super(redis);
            this.readSizes = readSizes;
        }

        @Override
        public CompletionStage<List<Optional<IdempotencyRecord>>> findAllAsync(List<IdempotencyKey> keys) {
            readSizes.add(keys.size());
            return store.findAllAsync(keys);
        }

        @Override
        public List<Optional<IdempotencyRecord>> findAll(List<IdempotencyKey> keys) {
            return store.findAll(keys);
        }

        @Override
        public CompletionStage<List<Boolean>> insertCopiesAsync(List<RecordCopy> copies) {
            return store.insertCopiesAsync(copies);
        }

        @Override
        public void close() {
            store.close();
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
        return TieredIdempotencyStore.of(new NotingFront(front, readSizes), records);
    }

    /** A consumer taking batches of 10 out of 60 in hand, so that batches wait behind the one running. */
    private OnceConsumer consume(Idempotency once) throws Exception {
        return rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue, once)
                .topology(Topology.declareAll(QueueType.CLASSIC))
                .retry(rabbit.remember(RetryPolicy.defaults()))
                .prefetch(MESSAGES)
                .batchClaims(true)
                .maxBatch(BATCH)
                .requestHandler((delivery, ctx) -> {
                    String id = delivery.getProperties().getMessageId();
                    if (firstHandler.compareAndSet(true, false)) {
                        // Every message is in the consumer's hands before the first handler returns, so the hint
                        // after it sees the whole queue behind the batch, however fast the broker delivered.
                        await().atMost(Duration.ofSeconds(10)).until(() -> rabbit.messageCount(rabbit.queue) == 0);
                    }
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
        firstHandler.set(true);
        OnceConsumer first = consume(once);
        awaitAllSettled(first);
        first.close();

        assertThat(effects).hasSize(MESSAGES);
        assertThat(effects.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        long takenFirst = tiered.readAheadTaken();
        assertThat(takenFirst).as("claims that took an answer read ahead").isPositive();
        assertThat(readSizes).as("a read ahead for more keys than a batch holds: the deliveries queued behind it")
                .anySatisfy(size -> assertThat(size).isGreaterThan(BATCH));
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
