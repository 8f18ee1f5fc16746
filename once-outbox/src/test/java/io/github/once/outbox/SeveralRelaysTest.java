package io.github.once.outbox;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;

import io.github.once.rabbitmq.OutboundMessage;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static io.github.once.outbox.OutboxWriteTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two and three relays on one table, while rows are still being written: no row is published by two relays (their
 * leases are long, so none lapses and no re-send is allowed), every row arrives once, and with ordering on, each
 * aggregate's messages arrive in the order they were written.
 */
class SeveralRelaysTest {

    private static final int MESSAGES = 3_000;

    @ParameterizedTest(name = "{0}, {1} relays")
    @CsvSource({"POSTGRESQL, 2", "POSTGRESQL, 3", "MARIADB, 2", "MARIADB, 3"})
    void noRowIsPublishedByTwoRelays(TestDatabase.Kind kind, int relays) throws Exception {
        try (TestDatabase db = new TestDatabase(kind); Broker broker = new Broker()) {
            String queue = broker.queue();
            Map<String, AtomicInteger> deliveries = countDeliveries(broker, queue);
            Map<String, List<String>> publishedBy = new ConcurrentHashMap<>();
            List<RecordingListener> listeners = new ArrayList<>();

            write(db, queue, 0, MESSAGES / 2, null);
            List<OutboxRelay> running = new ArrayList<>();
            for (int i = 0; i < relays; i++) {
                RecordingListener l = new RecordingListener("r" + i, publishedBy);
                listeners.add(l);
                running.add(db.relay(broker.connect("once-outbox-test-r" + i)).name("r" + i).batchSize(50)
                        .lease(Duration.ofSeconds(60)).listener(l).build().start());
            }
            write(db, queue, MESSAGES / 2, MESSAGES, null);

            await().atMost(Duration.ofSeconds(60)).until(() -> db.count("state = 'SENT'") == MESSAGES);
            await().atMost(Duration.ofSeconds(30)).until(() -> deliveries.size() == MESSAGES);
            running.forEach(OutboxRelay::close);

            assertThat(publishedBy).hasSize(MESSAGES);
            assertThat(publishedBy.values()).allSatisfy(by -> assertThat(by).hasSize(1));
            assertThat(deliveries.values()).allSatisfy(n -> assertThat(n.get()).isEqualTo(1));
            assertThat(listeners).allSatisfy(l -> assertThat(l.unconfirmed).isEmpty());
            assertThat(listeners).as("the relays shared the work").filteredOn(l -> !l.latencies.isEmpty())
                    .hasSizeGreaterThanOrEqualTo(2);
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"POSTGRESQL", "MARIADB"})
    void orderedRelaysPublishEachAggregateInOrder(TestDatabase.Kind kind) throws Exception {
        try (TestDatabase db = new TestDatabase(kind); Broker broker = new Broker()) {
            String queue = broker.queue();
            Map<String, List<Integer>> arrivals = new ConcurrentHashMap<>();
            Channel ch = broker.connect("once-outbox-test-consumer").createChannel();
            ch.basicConsume(queue, true, new DefaultConsumer(ch) {
                @Override
                public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
                    String[] parts = new String(body, StandardCharsets.UTF_8).split(":");
                    arrivals.computeIfAbsent(parts[0], k -> new CopyOnWriteArrayList<>()).add(Integer.parseInt(parts[1]));
                }
            });
            List<OutboxRelay> running = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                running.add(db.relay(broker.connect("once-outbox-test-r" + i)).name("r" + i).batchSize(40)
                        .orderedByAggregate(true).lease(Duration.ofSeconds(60)).build().start());
            }
            int aggregates = 20;
            int perAggregate = 30;
            for (int seq = 0; seq < perAggregate; seq++) {
                int s = seq;
                db.inTransaction(c -> {
                    for (int a = 0; a < aggregates; a++) {
                        db.outbox().write(c, OutboundMessage.of("", queue, bytes("agg" + a + ":" + s)), "agg" + a);
                    }
                });
            }

            await().atMost(Duration.ofSeconds(60)).until(() -> db.count("state = 'SENT'") == aggregates * perAggregate);
            await().atMost(Duration.ofSeconds(30)).until(() -> arrivals.values().stream().mapToInt(List::size).sum()
                    == aggregates * perAggregate);
            running.forEach(OutboxRelay::close);

            assertThat(arrivals).hasSize(aggregates);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < perAggregate; i++) {
                expected.add(i);
            }
            assertThat(arrivals.values()).allSatisfy(seqs -> assertThat(seqs).isEqualTo(expected));
        }
    }

    private static void write(TestDatabase db, String queue, int from, int to, String aggregate) throws Exception {
        for (int start = from; start < to; start += 100) {
            int s = start;
            db.inTransaction(c -> {
                List<OutboundMessage> batch = new ArrayList<>();
                for (int i = s; i < Math.min(s + 100, to); i++) {
                    batch.add(OutboundMessage.of("", queue, bytes("m" + i)).withMessageId("m-" + i));
                }
                db.outbox().writeAll(c, batch, aggregate);
            });
        }
    }

    private static Map<String, AtomicInteger> countDeliveries(Broker broker, String queue) throws Exception {
        Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
        Channel ch = broker.connect("once-outbox-test-consumer").createChannel();
        ch.basicConsume(queue, true, new DefaultConsumer(ch) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body) {
                counts.computeIfAbsent(props.getMessageId(), k -> new AtomicInteger()).incrementAndGet();
            }
        });
        return counts;
    }
}
