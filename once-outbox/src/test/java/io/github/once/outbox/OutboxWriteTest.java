package io.github.once.outbox;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.LongString;

import io.github.once.rabbitmq.OutboundMessage;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A message exists exactly when its transaction committed: a rollback publishes nothing, a commit publishes once. */
class OutboxWriteTest {

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aRolledBackWritePublishesNothingAndACommittedOnePublishesOnce(TestDatabase.Kind kind) throws Exception {
        try (TestDatabase db = new TestDatabase(kind); Broker broker = new Broker()) {
            String queue = broker.queue();
            Outbox outbox = db.outbox();
            OutboxRelay relay = db.relay(broker.connect("once-outbox-test-relay")).build();

            try (Connection c = db.dataSource.getConnection()) {
                c.setAutoCommit(false);
                outbox.write(c, OutboundMessage.of("", queue, bytes("never happened")).withMessageId("order-1-created"));
                c.rollback();
            }
            assertThat(relay.runOnce().claimed()).isZero();
            assertThat(db.count("")).isZero();

            AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                    .contentType("application/json").correlationId("corr-7").priority(3)
                    .headers(Map.of("tenant", "acme", "version", 2, "flags", List.of(true, 1.5)))
                    .build();
            db.inTransaction(c -> outbox.write(c, new OutboundMessage("", queue, props, bytes("{\"order\":2}"))
                    .withMessageId("order-2-created")));
            OutboxRelay.RoundResult first = relay.runOnce();
            assertThat(first.claimed()).isEqualTo(1);
            assertThat(first.published()).isEqualTo(1);
            assertThat(relay.runOnce().claimed()).as("a sent row is not claimed again").isZero();

            List<GetResponse> arrived = broker.drain(queue);
            assertThat(arrived).hasSize(1);
            GetResponse m = arrived.get(0);
            assertThat(new String(m.getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":2}");
            AMQP.BasicProperties got = m.getProps();
            assertThat(got.getMessageId()).isEqualTo("order-2-created");
            assertThat(got.getContentType()).isEqualTo("application/json");
            assertThat(got.getCorrelationId()).isEqualTo("corr-7");
            assertThat(got.getPriority()).isEqualTo(3);
            assertThat(got.getDeliveryMode()).as("persistent by default").isEqualTo(2);
            assertThat(got.getTimestamp()).isNotNull();
            assertThat(((LongString) got.getHeaders().get("tenant")).toString()).isEqualTo("acme");
            assertThat(got.getHeaders().get("version")).isEqualTo(2);
            assertThat(got.getHeaders().get("flags")).isEqualTo(List.of(true, 1.5));
            assertThat(db.count("state = 'SENT' AND sent_at IS NOT NULL AND lease_owner IS NULL")).isEqualTo(1);
            relay.close();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aWriteOutsideATransactionIsRefused(TestDatabase.Kind kind) throws Exception {
        try (TestDatabase db = new TestDatabase(kind); Connection c = db.dataSource.getConnection()) {
            c.setAutoCommit(true);
            assertThatThrownBy(() -> db.outbox().write(c, OutboundMessage.of("", "q", bytes("x"))))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("auto-commit");
            assertThat(db.count("")).isZero();
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
