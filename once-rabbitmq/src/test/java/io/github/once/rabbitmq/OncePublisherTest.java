package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.NoOpMetricsCollector;

import io.github.once.testkit.FaultProxy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The publisher against the real RabbitMQ: stable IDs, confirms, re-sends with the same ID, unroutable messages. */
class OncePublisherTest {

    private RabbitFixture rabbit;

    @BeforeEach
    void setUp() {
        rabbit = new RabbitFixture();
    }

    @AfterEach
    void tearDown() throws Exception {
        rabbit.close();
    }

    private void declareQueue(Map<String, Object> args) throws Exception {
        Channel ch = rabbit.admin();
        ch.queueDeclare(rabbit.queue, true, false, false, args);
        ch.close();
    }

    @Test
    void stampsATimeOrderedPersistentMessageIdAndKeepsABusinessKey() throws Exception {
        declareQueue(null);
        OncePublisher publisher = rabbit.track(OncePublisher.builder(rabbit.connect()).build());

        String first = publisher.publish("", rabbit.queue, "a".getBytes(StandardCharsets.UTF_8));
        String second = publisher.publish("", rabbit.queue, "b".getBytes(StandardCharsets.UTF_8));
        String business = publisher.publish(OutboundMessage.of("", rabbit.queue, "c".getBytes(StandardCharsets.UTF_8))
                .withMessageId("order-42-created"));

        assertThat(UUID.fromString(first).version()).isEqualTo(7);
        // Time-ordered: the leading 48 bits are the creation millisecond.
        assertThat(UUID.fromString(second).getMostSignificantBits() >>> 16)
                .isGreaterThanOrEqualTo(UUID.fromString(first).getMostSignificantBits() >>> 16);
        assertThat(business).isEqualTo("order-42-created");
        List<GetResponse> got = rabbit.drain(rabbit.queue);
        assertThat(got).extracting(r -> r.getProps().getMessageId()).containsExactly(first, second, business);
        assertThat(got).allSatisfy(r -> assertThat(r.getProps().getDeliveryMode()).isEqualTo(2));
        assertThat(publisher.outstanding()).isEmpty();
    }

    @Test
    void theSameMessagePublishedTwiceIsTwoCopiesWithOneMessageId() throws Exception {
        declareQueue(null);
        OncePublisher publisher = rabbit.track(OncePublisher.builder(rabbit.connect()).build());
        OutboundMessage order = OutboundMessage.of("", rabbit.queue,
                "{\"order_id\":1}".getBytes(StandardCharsets.UTF_8));

        String first = publisher.publish(order);
        String again = publisher.publish(order);
        List<String> batch = publisher.publishAll(List.of(order, order));

        assertThat(first).isEqualTo(order.messageId()).isEqualTo(again);
        assertThat(UUID.fromString(first).version()).isEqualTo(7);
        assertThat(batch).containsExactly(first, first);
        List<GetResponse> got = rabbit.drain(rabbit.queue);
        assertThat(got).hasSize(4).extracting(r -> r.getProps().getMessageId()).containsOnly(first);
        // Two messages made apart are two messages, even with the same body.
        String other = publisher.publish(OutboundMessage.of("", rabbit.queue, order.body()));
        assertThat(other).isNotEqualTo(first);
    }

    @Test
    void everyCopyOfAMessageKeepsItsId() {
        OutboundMessage message = OutboundMessage.of("", "q", new byte[] {1});
        String id = message.messageId();
        assertThat(id).isNotBlank();
        AMQP.BasicProperties typed = new AMQP.BasicProperties.Builder().type("order.created").build();
        assertThat(message.withProperties(typed).messageId()).isEqualTo(id);
        assertThat(message.withProperties(typed).properties().getType()).isEqualTo("order.created");
        assertThat(message.withMessageId("order-1").messageId()).isEqualTo("order-1");
        assertThat(new OutboundMessage("", "q", typed, null).messageId()).isNotBlank().isNotEqualTo(id);
        assertThatThrownBy(() -> message.withMessageId(" ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("messageId");
    }

    @Test
    void unroutableMessageIsRejectedWithTheBrokersReason() throws Exception {
        OncePublisher publisher = rabbit.track(OncePublisher.builder(rabbit.connect()).build());
        String queue = "no-such-queue-" + UUID.randomUUID();

        assertThatThrownBy(() -> publisher.publish(OutboundMessage.of("", queue, new byte[] {1})
                .withMessageId("lost-1")))
                .isInstanceOf(RejectedMessageException.class)
                .hasMessageContaining("lost-1")
                .satisfies(e -> {
                    RejectedMessageException r = (RejectedMessageException) e;
                    assertThat(r.messageId()).isEqualTo("lost-1");
                    assertThat(r.routingKey()).isEqualTo(queue);
                    assertThat(r.reason()).isEqualTo("returned as unroutable: 312 NO_ROUTE");
                });
        // The channel still works afterwards.
        declareQueue(null);
        assertThat(publisher.publish("", rabbit.queue, new byte[] {2})).isNotBlank();
    }

    @Test
    void aMissingExchangeIsRejectedAndTheNextPublishGetsANewChannel() throws Exception {
        OncePublisher publisher = rabbit.track(OncePublisher.builder(rabbit.connect()).build());
        String exchange = "no-such-exchange-" + UUID.randomUUID();

        assertThatThrownBy(() -> publisher.publish(OutboundMessage.of(exchange, "k", new byte[] {1})))
                .isInstanceOf(RejectedMessageException.class)
                .satisfies(e -> assertThat(((RejectedMessageException) e).reason())
                        .isEqualTo("exchange '" + exchange + "' does not exist"));
        declareQueue(null);
        assertThat(publisher.publish("", rabbit.queue, new byte[] {2})).isNotBlank();
        assertThat(rabbit.drain(rabbit.queue)).hasSize(1);
    }

    @Test
    void aNackedPublishIsRejectedAtOnceNotSentAgain() throws Exception {
        declareQueue(Map.of("x-max-length", 1, "x-overflow", "reject-publish"));
        AtomicInteger sent = new AtomicInteger();
        ConnectionFactory f = RabbitFixture.factory();
        f.setMetricsCollector(new NoOpMetricsCollector() {
            @Override
            public void basicPublish(Channel channel) {
                sent.incrementAndGet();
            }
        });
        Connection counted = f.newConnection("once-test-publisher");
        rabbit.track(counted::abort);
        OncePublisher publisher = rabbit.track(OncePublisher.builder(counted)
                .maxAttempts(3).retryBackoff(Duration.ofMillis(10)).build());
        publisher.publish(OutboundMessage.of("", rabbit.queue, new byte[] {1}).withMessageId("fits"));

        assertThatThrownBy(() -> publisher.publish(OutboundMessage.of("", rabbit.queue, new byte[] {2})
                .withMessageId("full-1")))
                .isInstanceOf(RejectedMessageException.class)
                .hasMessageContaining("full-1")
                .satisfies(e -> assertThat(((RejectedMessageException) e).reason()).isEqualTo("nacked by the broker"));
        assertThat(sent).as("publishes: one each, no re-send of the refused one").hasValue(2);
        assertThat(rabbit.messageCount(rabbit.queue)).isEqualTo(1);
    }

    @Test
    void tryPublishAllTellsEachMessagesFateAndSendsEachOnce() throws Exception {
        declareQueue(null);
        OncePublisher publisher = rabbit.track(OncePublisher.builder(rabbit.connect()).build());
        AMQP.BasicProperties transientProps = new AMQP.BasicProperties.Builder().deliveryMode(1).build();
        List<OutboundMessage> messages = List.of(
                OutboundMessage.of("", rabbit.queue, new byte[] {1}).withMessageId("ok-1"),
                OutboundMessage.of("", "no-such-queue-" + UUID.randomUUID(), new byte[] {2}).withMessageId("lost-2"),
                new OutboundMessage("", rabbit.queue, transientProps, new byte[] {3}).withMessageId("ok-3"));

        List<Optional<PublishException>> results = publisher.tryPublishAll(messages);

        assertThat(results).hasSize(3);
        assertThat(results.get(0)).isEmpty();
        assertThat(results.get(1)).get().isInstanceOf(RejectedMessageException.class)
                .extracting(PublishException::messageId).isEqualTo("lost-2");
        assertThat(results.get(2)).isEmpty();
        List<GetResponse> got = rabbit.drain(rabbit.queue);
        assertThat(got).extracting(r -> r.getProps().getMessageId()).containsExactly("ok-1", "ok-3");
        // Persistent unless the caller chose otherwise; timestamped either way.
        assertThat(got).extracting(r -> r.getProps().getDeliveryMode()).containsExactly(2, 1);
        assertThat(got).allSatisfy(r -> assertThat(r.getProps().getTimestamp()).isNotNull());
    }

    @Test
    void publishesSurviveALostConnectionAsDuplicatesNeverAsLosses() throws Exception {
        declareQueue(null);
        try (FaultProxy proxy = new FaultProxy("127.0.0.1", 5672)) {
            // The connection is cut right after the 1000th publish, on the publishing thread, so the rest of the
            // batch cannot be confirmed before it: it is sent or re-sent after, whatever the machine's speed.
            AtomicInteger sent = new AtomicInteger();
            AtomicBoolean cut = new AtomicBoolean();
            ConnectionFactory f = RabbitFixture.factory();
            f.setPort(proxy.port());
            f.setMetricsCollector(new NoOpMetricsCollector() {
                @Override
                public void basicPublish(Channel channel) {
                    if (sent.incrementAndGet() == 1000) {
                        proxy.cut(); // closes the proxy's sockets; nothing here waits
                        cut.set(true);
                    }
                }
            });
            Connection viaProxy = f.newConnection("once-test-publisher");
            rabbit.track(viaProxy::abort);
            OncePublisher publisher = rabbit.track(OncePublisher.builder(viaProxy)
                    .maxAttempts(20).retryBackoff(Duration.ofMillis(100)).confirmTimeout(Duration.ofSeconds(2))
                    .build());
            List<OutboundMessage> messages = new ArrayList<>();
            for (int i = 0; i < 3000; i++) {
                messages.add(OutboundMessage.of("", rabbit.queue, ("m" + i).getBytes(StandardCharsets.UTF_8)));
            }

            List<String> ids = publisher.publishAll(messages);

            assertThat(cut).isTrue();
            assertThat(sent.get()).as("publishes, re-sends included").isGreaterThan(3000);
            assertThat(new HashSet<>(ids)).hasSize(3000);
            Map<String, Integer> copies = new HashMap<>();
            for (GetResponse r : rabbit.drain(rabbit.queue)) {
                // Each copy, first send or re-send, carries the ID its message was given before the cut.
                int index = Integer.parseInt(new String(r.getBody(), StandardCharsets.UTF_8).substring(1));
                assertThat(r.getProps().getMessageId()).as("ID of a copy of m%d", index).isEqualTo(ids.get(index));
                copies.merge(r.getProps().getMessageId(), 1, Integer::sum);
            }
            // Every message arrived; one the broker took before the cut and got again is a duplicate, not a loss.
            assertThat(copies.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        }
    }
}
