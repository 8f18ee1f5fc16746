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
 * A consumer with batch claims over a tiered store (the real Redis in front of the real PostgreSQL): each delivery's
 * key is hinted as it arrives, so the front is read for it ahead of its claim (each key once, never by a claim
 * itself), and every claim takes that answer. Every message's effect happens once, and a second round of the same
 * messages is answered by the front.
 */
class TieredLookAheadConsumerTest {

    private static final int MESSAGES = 60;
    private static final int BATCH = 10;

    private final RabbitFixture rabbit = new RabbitFixture();
    private final String table = "once_ahead_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    private final Map<String, AtomicInteger> effects = new ConcurrentHashMap<>();
    private final List<Integer> readSizes = new CopyOnWriteArrayList<>();
    private final List<Integer> claimReadSizes = new CopyOnWriteArrayList<>();
    private final AtomicBoolean firstHandler = new AtomicBoolean();
    private final AtomicBoolean allReadDuringFirstHandler = new AtomicBoolean();
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

    /**
     * The Redis store, passed through; it notes how many keys each read asks for: asynchronous ones (reads ahead) and
     * synchronous ones (a claim's own).
     */
    private static final class NotingFront extends ForwardingStore {
        private final List<Integer> readSizes;
        private final List<Integer> claimReadSizes;

        NotingFront(RedisIdempotencyStore redis, List<Integer> readSizes, List<Integer> claimReadSizes) {
            super(redis);
            this.readSizes = readSizes;
            this.claimReadSizes = claimReadSizes;
        }

        @Override
        public CompletionStage<List<Optional<IdempotencyRecord>>> findAllAsync(List<IdempotencyKey> keys) {
            readSizes.add(keys.size());
            return store.findAllAsync(keys);
        }

        @Override
        public List<Optional<IdempotencyRecord>> findAll(List<IdempotencyKey> keys) {
            claimReadSizes.add(keys.size());
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
        return TieredIdempotencyStore.of(new NotingFront(front, readSizes, claimReadSizes), records);
    }

    /** A consumer taking batches of 10 out of up to 60 in hand, so that batches wait behind the one running. */
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
                        // The rest arrive while the worker's thread is held here: only hints made as deliveries
                        // arrive can read them.
                        publish(BATCH, MESSAGES);
                        await().atMost(Duration.ofSeconds(10)).until(() -> keysRead() == MESSAGES);
                        allReadDuringFirstHandler.set(true);
                    }
                    effects.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
                    return ("done " + id).getBytes(StandardCharsets.UTF_8);
                })
                .build()
                .start());
    }

    private int keysRead() {
        return readSizes.stream().mapToInt(Integer::intValue).sum();
    }

    private void publishAll() throws Exception {
        publish(0, MESSAGES);
    }

    private void publish(int from, int to) throws Exception {
        Channel ch = rabbit.admin();
        for (int i = from; i < to; i++) {
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
        publish(0, BATCH); // the first batch; its first handler publishes the other 50
        firstHandler.set(true);
        OnceConsumer first = consume(once);
        awaitAllSettled(first);
        first.close();

        assertThat(effects).hasSize(MESSAGES);
        assertThat(effects.values()).allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(tiered.readAheadTaken()).as("every claim took its key's answer read ahead").isEqualTo(MESSAGES);
        assertThat(allReadDuringFirstHandler).as("every key read while the first handler held the worker").isTrue();
        assertThat(keysRead()).as("each key read ahead once").isEqualTo(MESSAGES);
        assertThat(claimReadSizes).as("no claim read the front itself").isEmpty();
        assertThat(tiered.frontHits()).as("new keys: nothing for the front to answer").isZero();

        await().atMost(Duration.ofSeconds(10)).until(() -> tiered.copiesInFlight() == 0);
        assertThat(tiered.copiesSkipped()).isZero();
        publishAll();
        OnceConsumer second = consume(once);
        awaitAllSettled(second);

        assertThat(effects.values()).as("the second round ran no handler").allSatisfy(n -> assertThat(n).hasValue(1));
        assertThat(tiered.frontHits()).as("every duplicate answered by the front").isEqualTo(MESSAGES);
        assertThat(tiered.readAheadTaken()).as("each from its read ahead").isEqualTo(2L * MESSAGES);
        assertThat(claimReadSizes).as("no claim read the front itself").isEmpty();
    }
}
