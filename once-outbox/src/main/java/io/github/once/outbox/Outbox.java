package io.github.once.outbox;

import com.rabbitmq.client.AMQP;

import io.github.once.OnceObservation;
import io.github.once.jdbc.JdbcDialect;
import io.github.once.outbox.internal.OutboxSchema;
import io.github.once.outbox.internal.OutboxSql;
import io.github.once.outbox.internal.PropertiesCodec;
import io.github.once.rabbitmq.OutboundMessage;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Date;
import java.util.List;
import java.util.Objects;

/**
 * Writes messages into the outbox table in the caller's transaction, so a message exists exactly when the
 * business change it describes committed: a rollback takes the message with it, a commit makes it durable before
 * anything is published. An {@link OutboxRelay} publishes the committed rows afterwards, with publisher confirms
 * and the message's own {@code message_id} on every try, so a consumer (a {@code OnceConsumer}) takes each effect
 * once.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.defaults();
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     insertOrder(c, order);
 *     outbox.write(c, OutboundMessage.of("orders", "order.created", json).withMessageId("order-42-created"));
 *     c.commit();
 * }
 * }</pre>
 *
 * Thread-safe; one instance serves any number of connections to one database.
 */
public final class Outbox {

    /** The table name the schema files create. */
    public static final String DEFAULT_TABLE = "once_outbox";
    static final int MAX_MESSAGE_ID = 200;
    static final int MAX_AGGREGATE_KEY = 200;

    private final String table;
    private final boolean notifyRelays;
    private final JdbcDialect fixedDialect;
    /** Null without observations: then no Micrometer class is loaded. */
    private final ObservationRegistry observations;
    private volatile OutboxSql sql;

    private Outbox(Builder b) {
        this.table = b.table;
        this.notifyRelays = b.notifyRelays;
        this.fixedDialect = b.dialect;
        this.observations = b.observations;
        this.sql = b.dialect == null ? null : new OutboxSql(b.dialect, b.table);
    }

    /** The default table ({@value #DEFAULT_TABLE}), the dialect detected from the first connection. */
    public static Outbox defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The classpath location of the outbox schema for a dialect, ready for a Flyway or Liquibase folder. */
    public static String schemaResource(JdbcDialect dialect) {
        return "db/once/" + dialect.name().toLowerCase(java.util.Locale.ROOT) + "/V3__once_outbox.sql";
    }

    /**
     * Creates the outbox table from the dialect's schema file ({@link #schemaResource}), named {@code tableName},
     * on {@code connection}: for tests, demos and applications without a migration tool. With Flyway or Liquibase,
     * use the schema file instead.
     */
    public static void createTable(Connection connection, String tableName) throws SQLException {
        OutboxSchema.create(connection, tableName);
    }

    /**
     * Inserts one message into the outbox on {@code connection}, inside the transaction the caller has open there.
     * Nothing is published until that transaction commits.
     *
     * @return the message ID every publish of this message carries
     * @throws IllegalStateException when the connection is in auto-commit mode (the message would not share the
     *                               transaction of the change it describes)
     */
    public String write(Connection connection, OutboundMessage message) throws SQLException {
        return write(connection, message, null);
    }

    /**
     * Inserts one message that belongs to an aggregate (an order, an account): a relay with
     * {@link OutboxRelay.Builder#orderedByAggregate(boolean) ordering} publishes an aggregate's messages one after
     * another in the order they were written. Without ordering the key is stored and ignored.
     */
    public String write(Connection connection, OutboundMessage message, String aggregateKey) throws SQLException {
        writeAll(connection, List.of(message), aggregateKey);
        return message.messageId();
    }

    /** Inserts several messages in one batch, all of the same aggregate (or of none, when {@code aggregateKey} is null). */
    public void writeAll(Connection connection, List<OutboundMessage> messages, String aggregateKey)
            throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(messages, "messages");
        checkAggregateKey(aggregateKey);
        if (messages.isEmpty()) {
            return;
        }
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("the connection is in auto-commit mode: an outbox message must be written"
                    + " in the transaction of the change it describes; call setAutoCommit(false) and commit both");
        }
        OutboxSql statements = statements(connection);
        boolean notify = notifyRelays && statements.dialect == JdbcDialect.POSTGRESQL;
        try (PreparedStatement ps = connection.prepareStatement(notify ? notifyingInsert(statements) : statements.insert)) {
            for (OutboundMessage m : messages) {
                bind(ps, m, aggregateKey, notify ? statements.channel() : null);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** PostgreSQL: the insert also queues a notification, which the server delivers to listeners at commit. */
    private static String notifyingInsert(OutboxSql statements) {
        return "INSERT INTO " + statements.table + " (message_id, exchange_name, routing_key, properties, body,"
                + " aggregate_key, state, attempts, available_at, created_at)"
                + " SELECT ?, ?, ?, ?, ?, ?, 'PENDING', 0, clock_timestamp(), clock_timestamp()"
                + " FROM (SELECT pg_notify(?, '')) AS n";
    }

    private void bind(PreparedStatement ps, OutboundMessage m, String aggregateKey, String channel)
            throws SQLException {
        Objects.requireNonNull(m, "message");
        String id = m.messageId();
        if (id.length() > MAX_MESSAGE_ID) {
            throw new IllegalArgumentException("messageId must be at most " + MAX_MESSAGE_ID + " characters, but was "
                    + id.length() + " ('" + id.substring(0, 40) + "...')");
        }
        ps.setString(1, id);
        ps.setString(2, shortString("exchange", m.exchange()));
        ps.setString(3, shortString("routingKey", m.routingKey()));
        ps.setBytes(4, PropertiesCodec.encode(traced(stamped(m.properties()), m)));
        ps.setBytes(5, m.body());
        if (aggregateKey == null) {
            ps.setNull(6, Types.VARCHAR);
        } else {
            ps.setString(6, aggregateKey);
        }
        if (channel != null) {
            ps.setString(7, channel);
        }
    }

    /** Persistent unless the caller chose otherwise, and timestamped now: every try then sends the same properties. */
    private static AMQP.BasicProperties stamped(AMQP.BasicProperties p) {
        if (p.getDeliveryMode() != null && p.getTimestamp() != null) {
            return p;
        }
        return p.builder()
                .deliveryMode(p.getDeliveryMode() == null ? 2 : p.getDeliveryMode())
                .timestamp(p.getTimestamp() == null ? new Date() : p.getTimestamp())
                .build();
    }

    /**
     * With observations, the row keeps the writer's trace context (from the observation open on this thread) in
     * its headers, so the relay's publish carries it to the consumer.
     */
    private AMQP.BasicProperties traced(AMQP.BasicProperties p, OutboundMessage m) {
        Observation writer = observations == null ? null : observations.getCurrentObservation();
        if (writer == null) {
            return p;
        }
        String destination = m.exchange().isEmpty() ? m.routingKey() : m.exchange();
        return p.builder().headers(OnceObservation.inject(writer, "outbox", destination, p.getHeaders())).build();
    }

    private static String shortString(String name, String value) {
        if (value.getBytes(StandardCharsets.UTF_8).length > 255) {
            throw new IllegalArgumentException(name + " must be at most 255 bytes in UTF-8 (an AMQP short string),"
                    + " but was '" + value.substring(0, Math.min(40, value.length())) + "...'");
        }
        return value;
    }

    private static void checkAggregateKey(String aggregateKey) {
        if (aggregateKey != null && (aggregateKey.isEmpty() || aggregateKey.length() > MAX_AGGREGATE_KEY)) {
            throw new IllegalArgumentException("aggregateKey must be null or 1 to " + MAX_AGGREGATE_KEY
                    + " characters, but was '" + aggregateKey + "'");
        }
    }

    private OutboxSql statements(Connection connection) throws SQLException {
        OutboxSql s = sql;
        if (s == null) {
            s = new OutboxSql(JdbcDialect.detect(connection), table);
            sql = s;
        }
        return s;
    }

    @Override
    public String toString() {
        return "Outbox[table=" + table + ", dialect=" + (fixedDialect == null ? "detected" : fixedDialect)
                + ", notifyRelays=" + notifyRelays + "]";
    }

    /** Builds {@link Outbox}; every setting has a default unless its factory takes it. */
    public static final class Builder {
        private String table = DEFAULT_TABLE;
        private boolean notifyRelays = true;
        private JdbcDialect dialect;
        private ObservationRegistry observations;

        private Builder() {
        }

        /** The outbox table (default {@value Outbox#DEFAULT_TABLE}); the relay must use the same name. */
        public Builder tableName(String tableName) {
            this.table = OutboxSql.checkTableName(tableName);
            return this;
        }

        /** The database's dialect; detected from the first connection when not set. */
        public Builder dialect(JdbcDialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect");
            return this;
        }

        /**
         * PostgreSQL only: whether each write also sends a {@code NOTIFY} on the table's channel, delivered at
         * commit, so a relay listening there publishes within milliseconds instead of at its next poll. Default
         * true. PostgreSQL serializes the commits of notifying transactions briefly; turn this off when writes
         * are very frequent and polling is fast enough.
         */
        public Builder notifyRelays(boolean notifyRelays) {
            this.notifyRelays = notifyRelays;
            return this;
        }

        /**
         * Keeps the trace context of the observation open on the writing thread with each row (in its headers,
         * through a {@code once.publish} observation of kind {@code outbox}), so the relay publishes the message in
         * the writer's trace and the consumer continues it. Without it (the default) no observation is made.
         */
        public Builder observationRegistry(ObservationRegistry registry) {
            this.observations = Objects.requireNonNull(registry, "registry");
            return this;
        }

        public Outbox build() {
            return new Outbox(this);
        }
    }
}
