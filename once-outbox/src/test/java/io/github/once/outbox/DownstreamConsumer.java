package io.github.once.outbox;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;
import com.zaxxer.hikari.HikariDataSource;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.Topology;

import java.io.IOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The consumer at the far end of the outbox: a {@code OnceConsumer} on PostgreSQL in transactional mode, whose
 * effect is one row in an effects table, written in the transaction that records the message as processed. Every
 * use of the executor API sits in {@link #executor}, so it is the one place to adapt when that API changes.
 */
final class DownstreamConsumer implements AutoCloseable {

    private final String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
    private final String records = "once_outbox_rec_" + suffix;
    private final String effects = "once_outbox_fx_" + suffix;
    private final HikariDataSource dataSource;
    private final OnceConsumer consumer;
    private final String queue;
    private final Connection connection;
    private final AtomicLong deliveries = new AtomicLong();

    DownstreamConsumer(Connection connection, String queue) throws Exception {
        this.queue = queue;
        this.connection = connection;
        dataSource = TestDatabase.pool(TestDatabase.Kind.POSTGRESQL.url, TestDatabase.Kind.POSTGRESQL.user, 6);
        try (java.sql.Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE " + effects + " (message_id VARCHAR(200) NOT NULL)");
        }
        consumer = OnceConsumer.builder(connection, queue, executor())
                .topology(Topology.retryQueuesOnly(Topology.QueueType.CLASSIC))
                .channels(2)
                .prefetch(200)
                .batchClaims(true)
                .listener(new ConsumerListener() {
                    @Override
                    public void onDelivery(Delivery delivery, int attempt) {
                        deliveries.incrementAndGet();
                    }
                })
                .handler((delivery, ctx) -> {
                    java.sql.Connection tx = ctx.resource(java.sql.Connection.class);
                    try (PreparedStatement ps = tx.prepareStatement("INSERT INTO " + effects + " (message_id) VALUES (?)")) {
                        ps.setString(1, delivery.getProperties().getMessageId());
                        ps.executeUpdate();
                    }
                })
                .build()
                .start();
    }

    private Idempotency executor() {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).tableName(records)
                .createTableIfMissing(true).build();
        IdempotencyConfig config = IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(10))
                .retention(Duration.ofMinutes(10)).build();
        return Idempotency.builder(store).transactional().config(config).build();
    }

    /** Deliveries the consumer received, duplicates and retries included. */
    long deliveries() {
        return deliveries.get();
    }

    /** The delay and dead-letter queues the consumer's topology declared beside the work queue. */
    private void deleteRetryQueues() throws IOException, TimeoutException {
        List<String> names = RabbitCtl.queuesStartingWith(queue + ".");
        try (Channel ch = connection.createChannel()) {
            for (String name : names) {
                ch.queueDelete(name);
            }
        }
    }

    long totalEffects() throws SQLException {
        return count("SELECT count(*) FROM " + effects);
    }

    long distinctEffects() throws SQLException {
        return count("SELECT count(DISTINCT message_id) FROM " + effects);
    }

    /** Written message IDs (in the outbox table {@code outbox}) with no effect. */
    long missingEffects(String outbox) throws SQLException {
        return count("SELECT count(*) FROM " + outbox + " o WHERE NOT EXISTS (SELECT 1 FROM " + effects
                + " e WHERE e.message_id = o.message_id)");
    }

    private long count(String sql) throws SQLException {
        try (java.sql.Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public void close() throws SQLException, IOException, TimeoutException {
        consumer.close();
        deleteRetryQueues();
        try (java.sql.Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + effects);
            st.execute("DROP TABLE IF EXISTS " + records);
        } finally {
            dataSource.close();
        }
    }
}
