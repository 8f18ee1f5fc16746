package io.github.once.outbox;

import com.rabbitmq.client.GetResponse;

import io.github.once.rabbitmq.OutboundMessage;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.github.once.outbox.OutboxWriteTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Returned and refused messages are retried with back-off, then parked with the reason: never silently dropped. */
class RetryAndParkTest {

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void anUnroutableMessageIsRetriedWithBackoffThenParkedWithTheReason(TestDatabase.Kind kind) throws Exception {
        try (TestDatabase db = new TestDatabase(kind); Broker broker = new Broker()) {
            RecordingListener listener = new RecordingListener();
            OutboxRelay relay = db.relay(broker.connect("once-outbox-test-relay"))
                    .retries(3, Duration.ofSeconds(1), Duration.ofSeconds(2)).listener(listener).build();
            String nowhere = "no-queue-" + UUID.randomUUID();
            db.inTransaction(c -> db.outbox().write(c, OutboundMessage.of("", nowhere, bytes("lost?")).withMessageId("m-1")));

            OutboxRelay.RoundResult first = relay.runOnce();
            assertThat(first.retried()).isEqualTo(1);
            assertThat(relay.runOnce().claimed()).as("not due again before its back-off").isZero();
            assertThat(db.count("state = 'PENDING' AND attempts = 1 AND last_error LIKE '%312 NO_ROUTE%'")).isEqualTo(1);

            await().atMost(Duration.ofSeconds(20)).until(() -> relay.runOnce().parked() == 1);

            assertThat(listener.retries).extracting(RecordingListener.Retry::attempt).containsExactly(1, 2);
            assertThat(listener.retries).extracting(RecordingListener.Retry::delay)
                    .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));
            assertThat(listener.parks).singleElement().satisfies(p -> {
                assertThat(p.messageId()).isEqualTo("m-1");
                assertThat(p.attempts()).isEqualTo(3);
                assertThat(p.reason()).contains("unroutable").contains("312 NO_ROUTE");
            });
            assertThat(db.count("state = 'PARKED' AND attempts = 3 AND last_error LIKE '%NO_ROUTE%'"
                    + " AND lease_owner IS NULL")).isEqualTo(1);
            assertThat(relay.runOnce().claimed()).as("a parked row stays parked").isZero();
            relay.close();
        }
    }

    @Test
    void aMessageTheBrokerRefusesIsRetriedThenParked() throws Exception {
        try (TestDatabase db = new TestDatabase(TestDatabase.Kind.POSTGRESQL); Broker broker = new Broker()) {
            // A queue that holds nothing and refuses what does not fit: every publish to it is nacked.
            String full = broker.queue(Map.of("x-max-length", 0, "x-overflow", "reject-publish"));
            RecordingListener listener = new RecordingListener();
            OutboxRelay relay = db.relay(broker.connect("once-outbox-test-relay"))
                    .retries(2, Duration.ofMillis(200), Duration.ofMillis(200)).listener(listener).build();
            db.inTransaction(c -> db.outbox().write(c, OutboundMessage.of("", full, bytes("x")).withMessageId("m-2")));

            await().atMost(Duration.ofSeconds(20)).until(() -> relay.runOnce().parked() == 1);

            assertThat(listener.retries).singleElement().satisfies(r -> assertThat(r.reason()).contains("nack"));
            assertThat(listener.parks).singleElement().satisfies(p -> assertThat(p.reason()).contains("nack"));
            assertThat(db.count("state = 'PARKED' AND last_error LIKE '%nack%'")).isEqualTo(1);
            relay.close();
        }
    }

    @Test
    void aMissingExchangeParksItsMessageAndDoesNotHoldUpTheOthers() throws Exception {
        try (TestDatabase db = new TestDatabase(TestDatabase.Kind.POSTGRESQL); Broker broker = new Broker()) {
            String queue = broker.queue();
            RecordingListener listener = new RecordingListener();
            OutboxRelay relay = db.relay(broker.connect("once-outbox-test-relay"))
                    .retries(2, Duration.ofMillis(200), Duration.ofMillis(200)).listener(listener).build();
            String exchange = "no-exchange-" + UUID.randomUUID();
            db.inTransaction(c -> {
                db.outbox().write(c, OutboundMessage.of(exchange, "k", bytes("bad")).withMessageId("bad"));
                db.outbox().write(c, OutboundMessage.of("", queue, bytes("good")).withMessageId("good"));
            });

            await().atMost(Duration.ofSeconds(20)).until(() -> {
                relay.runOnce();
                return db.count("state = 'PENDING'") == 0;
            });

            assertThat(listener.parks).singleElement().satisfies(p -> {
                assertThat(p.messageId()).isEqualTo("bad");
                assertThat(p.reason()).contains(exchange).contains("does not exist");
            });
            List<GetResponse> arrived = broker.drain(queue);
            assertThat(arrived).isNotEmpty().allSatisfy(m -> assertThat(m.getProps().getMessageId()).isEqualTo("good"));
            assertThat(db.count("state = 'SENT' AND message_id = 'good'")).isEqualTo(1);
            relay.close();
        }
    }
}
