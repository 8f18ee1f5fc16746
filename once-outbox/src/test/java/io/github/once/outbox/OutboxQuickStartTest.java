package io.github.once.outbox;

import com.rabbitmq.client.GetResponse;
import com.zaxxer.hikari.HikariDataSource;

import io.github.once.rabbitmq.OutboundMessage;
import io.github.once.readme.ReadmeSnippet;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

import javax.sql.DataSource;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * README.md's outbox quick start, compiled and run: the code between the README markers is the snippet, run on an
 * H2 database of its own (so the default table name is this test's alone) and the real RabbitMQ. The order and its
 * message commit together, the relay publishes the message once with the ID written, and the README shows exactly
 * this code.
 */
class OutboxQuickStartTest {

    private void insertOrder(Connection c, String orderId) throws SQLException {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO orders (id) VALUES (?)")) {
            insert.setString(1, orderId);
            insert.executeUpdate();
        }
    }

    OutboxRelay quickStart(DataSource dataSource, com.rabbitmq.client.Connection rabbitConnection, String queue,
                           String orderId) throws Exception {
        byte[] json = ("{\"order_id\": \"" + orderId + "\"}").getBytes(StandardCharsets.UTF_8);
        // README:start
        OutboxRelay relay = OutboxRelay.builder(dataSource, rabbitConnection).build().start(); // publishes committed rows

        Outbox outbox = Outbox.defaults(); // table once_outbox, dialect detected
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            insertOrder(c, orderId); // your change
            outbox.write(c, OutboundMessage.of("", queue, json).withMessageId("order-" + orderId + "-created"));
            c.commit(); // both, or neither
        }
        // README:end
        return relay;
    }

    @Test
    void theOrderIsPublishedOnceAfterItsCommitAndIsWhatTheReadmeShows() throws Exception {
        String url = "jdbc:h2:mem:outbox-quickstart-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        try (HikariDataSource db = TestDatabase.pool(url, "sa", 4); Broker broker = new Broker()) {
            try (Connection c = db.getConnection(); Statement st = c.createStatement()) {
                Outbox.createTable(c, Outbox.DEFAULT_TABLE);
                st.execute("CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY)");
            }
            String queue = broker.queue();
            try (OutboxRelay relay = quickStart(db, broker.connect("once-outbox-quickstart"), queue, "42")) {
                await().atMost(Duration.ofSeconds(15)).until(() -> broker.messageCount(queue) == 1);
            }
            List<GetResponse> messages = broker.drain(queue);
            assertThat(messages).hasSize(1);
            assertThat(messages.get(0).getProps().getMessageId()).isEqualTo("order-42-created");
        }
        assertThat(Files.readString(Path.of("../README.md"))).contains(snippet());
    }

    /** The lines between the markers, de-indented. */
    static String snippet() throws Exception {
        return ReadmeSnippet.of("src/test/java/io/github/once/outbox/OutboxQuickStartTest.java");
    }
}
