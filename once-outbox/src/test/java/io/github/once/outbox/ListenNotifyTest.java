package io.github.once.outbox;

import io.github.once.rabbitmq.OutboundMessage;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static io.github.once.outbox.OutboxWriteTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** On PostgreSQL a commit wakes a listening relay: it publishes long before its next poll would. */
class ListenNotifyTest {

    @Test
    void aCommitWakesTheRelayBeforeItsNextPoll() throws Exception {
        try (TestDatabase db = new TestDatabase(TestDatabase.Kind.POSTGRESQL); Broker broker = new Broker()) {
            String queue = broker.queue();
            RecordingListener listener = new RecordingListener();
            OutboxRelay relay = db.relay(broker.connect("once-outbox-test-relay")).pollInterval(Duration.ofMinutes(5))
                    .wakeup(OutboxRelay.Wakeup.LISTEN_NOTIFY).listener(listener).build().start();
            try {
                for (int i = 1; i <= 3; i++) {
                    String id = "n-" + i;
                    db.inTransaction(c -> db.outbox().write(c, OutboundMessage.of("", queue, bytes(id)).withMessageId(id)));
                    int expected = i;
                    // Far below the 5-minute poll: only a notification (or the listener's catch-up on connect) can do it.
                    await().atMost(Duration.ofSeconds(10)).until(() -> broker.messageCount(queue) == expected);
                }
                assertThat(listener.latencies).hasSize(3);
            } finally {
                relay.close();
            }
        }
    }

    @Test
    void aPollingRelayWaitsForItsPoll() throws Exception {
        try (TestDatabase db = new TestDatabase(TestDatabase.Kind.POSTGRESQL); Broker broker = new Broker()) {
            String queue = broker.queue();
            OutboxRelay relay = db.relay(broker.connect("once-outbox-test-relay")).pollInterval(Duration.ofMinutes(5))
                    .wakeup(OutboxRelay.Wakeup.POLLING).build().start();
            try {
                db.inTransaction(c -> db.outbox().write(c, OutboundMessage.of("", queue, bytes("first"))));
                // The relay's first round, at start, may or may not have seen it; the wake-up after a write is
                // what this test is about, so wait for the first message to go, then write the second.
                relay.runOnce();
                await().atMost(Duration.ofSeconds(10)).until(() -> broker.messageCount(queue) == 1);
                db.inTransaction(c -> db.outbox().write(c, OutboundMessage.of("", queue, bytes("second"))));
                await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(3))
                        .until(() -> broker.messageCount(queue) == 1);
            } finally {
                relay.close();
            }
        }
    }
}
