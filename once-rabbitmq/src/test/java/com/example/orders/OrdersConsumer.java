package com.example.orders;

import com.rabbitmq.client.ConnectionFactory;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.rabbitmq.KeyExtractor;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.Topology;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import javax.sql.DataSource;

import org.postgresql.ds.PGSimpleDataSource;

/** Ships each order once, however often RabbitMQ delivers it: the shipment and its record commit together. */
public final class OrdersConsumer {

    public static void main(String[] args) throws Exception {
        ConnectionFactory rabbit = new ConnectionFactory();
        rabbit.setHost("127.0.0.1"); // port 5672, user guest/guest by default
        PGSimpleDataSource db = new PGSimpleDataSource();
        db.setUrl("jdbc:postgresql://127.0.0.1:5432/test");
        db.setUser("postgres");

        try (com.rabbitmq.client.Connection connection = OnceConsumer.connect(rabbit, "orders-consumer");
             OnceConsumer consumer = start(connection, db, "orders")) {
            Thread.currentThread().join(); // consume until the process is stopped
        }
    }

    /** Consumes JSON orders such as {"order_id": "A-1001", "sku": "book"} from {@code queue}. */
    public static OnceConsumer start(com.rabbitmq.client.Connection connection, DataSource db, String queue)
            throws Exception {
        createShipmentTable(db);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db)
                .createTableIfMissing(true) // a demo; in production run db/once/postgresql/V1__ and V2__*.sql
                .build();
        Idempotency once = Idempotency.builder(store)
                .transactional() // the record commits with the handler's writes
                .config(IdempotencyConfig.builder().retention(Duration.ofDays(7)).build())
                .build();
        return OnceConsumer.builder(connection, queue, once)
                .keyExtractor(KeyExtractor.jsonBody("order_id")) // the default is the message_id property
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC)) // the queue, its delay and dead-letter queues
                .handler((delivery, ctx) -> ship(ctx.resource(Connection.class), ctx.key().id(), delivery.getBody()))
                // By default the deliveries in hand share one transaction (batch claims); a handler that throws
                // rolls the batch back and the others run again, so write only through ctx's Connection here
                // (.batchClaims(false) for one delivery per transaction)
                .build()
                .start();
    }

    private static void ship(Connection tx, String orderId, byte[] order) throws SQLException {
        try (PreparedStatement insert = tx.prepareStatement("INSERT INTO shipment (order_id, body) VALUES (?, ?)")) {
            insert.setString(1, orderId);
            insert.setBytes(2, order);
            insert.executeUpdate();
        }
    }

    private static void createShipmentTable(DataSource db) throws SQLException {
        try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS shipment (order_id TEXT NOT NULL, body BYTEA NOT NULL,"
                    + " shipped_at TIMESTAMPTZ NOT NULL DEFAULT now())");
        }
    }
}
