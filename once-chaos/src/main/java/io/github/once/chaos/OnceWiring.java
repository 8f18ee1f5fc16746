package io.github.once.chaos;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.jdbc.JdbcDialect;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.outbox.Outbox;
import io.github.once.outbox.OutboxRelay;
import io.github.once.rabbitmq.MessageHandler;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.OncePublisher;
import io.github.once.rabbitmq.OutboundMessage;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.tiered.TieredIdempotencyStore;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import javax.sql.DataSource;

/**
 * Every use of Once's builders in the harness, in one place: the executors of the modes, the consumer, the
 * topology, the publisher and the outbox. When a builder changes, only this class changes.
 */
final class OnceWiring {

    /** Table of the JDBC store's records in the private PostgreSQL and the private MariaDB. */
    static final String RECORD_TABLE = "once_chaos_record";
    static final Duration STORE_TIMEOUT = Duration.ofSeconds(2);

    static final RetryPolicy RETRY = RetryPolicy.builder()
            .maxAttempts(10)
            .backoff(Duration.ofMillis(200), Duration.ofSeconds(1), Duration.ofSeconds(3))
            .build();

    private OnceWiring() {
    }

    static IdempotencyConfig config(Duration lease) {
        return IdempotencyConfig.builder().leaseDuration(lease).build();
    }

    static Idempotency memory(Duration lease) {
        return Idempotency.builder(InMemoryIdempotencyStore.builder().build()).config(config(lease)).build();
    }

    static Idempotency redis(String uri, Duration lease) {
        RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(uri).timeout(STORE_TIMEOUT).build();
        return Idempotency.builder(store).config(config(lease)).build();
    }

    /**
     * The JDBC store on the mode's database (PostgreSQL, or MariaDB for {@link Mode#MARIADB_TX}), transactional: the
     * handler's effect must be written on {@code context.resource(java.sql.Connection.class)}.
     */
    static Idempotency jdbcTransactional(DataSource dataSource, Mode mode, Duration lease) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
                .dialect(dialect(mode))
                .tableName(RECORD_TABLE)
                .queryTimeout(STORE_TIMEOUT)
                .build();
        return Idempotency.builder(store).transactional().config(config(lease)).build();
    }

    /**
     * The tiered store, Redis in front of the JDBC store of record, in transactional mode: the effect is written
     * on {@code context.resource(java.sql.Connection.class)}. The front builds while Redis is down.
     */
    static Idempotency tiered(String redisUri, DataSource dataSource, Duration lease) {
        RedisIdempotencyStore front = RedisIdempotencyStore.builder().uri(redisUri).timeout(STORE_TIMEOUT).build();
        JdbcIdempotencyStore records = JdbcIdempotencyStore.builder(dataSource)
                .dialect(JdbcDialect.POSTGRESQL)
                .tableName(RECORD_TABLE)
                .queryTimeout(STORE_TIMEOUT)
                .build();
        return Idempotency.builder(TieredIdempotencyStore.builder(front, records).build()).transactional()
                .config(config(lease)).build();
    }

    static void createRecordTable(DataSource dataSource, Mode mode) {
        JdbcIdempotencyStore.builder(dataSource).dialect(dialect(mode)).tableName(RECORD_TABLE)
                .createTableIfMissing(true).build();
    }

    private static JdbcDialect dialect(Mode mode) {
        return mode.onMariaDb() ? JdbcDialect.MARIADB : JdbcDialect.POSTGRESQL;
    }

    static OnceConsumer consumer(Connection connection, String queue, Idempotency executor, int prefetch,
                                 MessageHandler handler) {
        // The keys' namespace is the run's queue: the modes that share the private PostgreSQL's record table
        // (jdbc-tx and tiered) must not see each other's records of the same message ids.
        return OnceConsumer.builder(connection, queue, executor)
                .prefetch(prefetch)
                .retry(RETRY)
                .topology(Topology.none())
                .shutdownTimeout(Duration.ofSeconds(5))
                .handler(handler)
                .build();
    }

    /** The work queue, its delay queues and its dead-letter queue, all quorum queues. */
    static void declareTopology(Channel channel, String queue) throws IOException {
        Topology.declareAll(Topology.QueueType.QUORUM).declare(channel, queue, RETRY);
    }

    static String deadLetterQueue(String queue) {
        return Topology.deadLetterQueue(queue);
    }

    /** The retry levels as the Spring starter's {@code once.retry.backoff} property: {@code 200ms,1000ms,3000ms}. */
    static String backoffProperty() {
        List<String> levels = new ArrayList<>();
        for (Duration level : RETRY.backoff()) {
            levels.add(level.toMillis() + "ms");
        }
        return String.join(",", levels);
    }

    /** Where messages wait between tries: empty when the run has settled. */
    static List<String> delayQueues(String queue) {
        List<String> names = new ArrayList<>();
        for (Duration level : RETRY.backoff()) {
            names.add(Topology.delayQueue(queue, level));
        }
        return names;
    }

    static OncePublisher publisher(Connection connection) {
        return OncePublisher.builder(connection)
                .confirmTimeout(Duration.ofSeconds(5))
                .maxAttempts(4)
                .build();
    }

    /** The outbox-tx producer's outbox, on the private PostgreSQL. */
    static Outbox outbox(String table) {
        return Outbox.builder().tableName(table).dialect(JdbcDialect.POSTGRESQL).build();
    }

    /**
     * An outbox-tx relay. A short lease, so that rows a killed relay had claimed are taken over within seconds (as
     * tests use short leases); retries bounded in seconds, so that a row refused while a queue's leader moves is
     * published again before the run settles, not minutes later.
     */
    static OutboxRelay relay(DataSource dataSource, Connection connection, String table, String name) {
        return OutboxRelay.builder(dataSource, connection)
                .tableName(table)
                .dialect(JdbcDialect.POSTGRESQL)
                .name(name)
                .lease(Duration.ofSeconds(3))
                .confirmTimeout(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(500))
                .retries(10, Duration.ofMillis(500), Duration.ofSeconds(5))
                .build();
    }

    static OutboundMessage message(String queue, String id, byte[] body) {
        return OutboundMessage.of("", queue, body).withMessageId(id);
    }
}
