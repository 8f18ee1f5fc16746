package io.github.once.cli.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The embedded broker does what the demo needs, and differs from RabbitMQ exactly where the demo says it does. */
class EmbeddedBrokerTest {

    private static EmbeddedBroker broker;
    private static ConnectionFactory factory;

    @BeforeAll
    static void start() throws Exception {
        long t0 = System.nanoTime();
        broker = EmbeddedBroker.start();
        System.out.println("embedded broker started in " + (System.nanoTime() - t0) / 1_000_000 + " ms");
        factory = new ConnectionFactory();
        factory.setUri(broker.uri());
        factory.setAutomaticRecoveryEnabled(false);
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    @Test
    void carriesMessagesWithConfirmsAndRedeliversAfterAChannelCloses() throws Exception {
        try (Connection c = factory.newConnection()) {
            Channel ch = c.createChannel();
            ch.confirmSelect();
            String q = ch.queueDeclare("q-redeliver", true, false, false, null).getQueue();
            ch.basicPublish("", q, new AMQP.BasicProperties.Builder().messageId("m1")
                    .headers(Map.of("h", "v")).build(), "x".getBytes(StandardCharsets.UTF_8));
            ch.waitForConfirmsOrDie(5000);
            GetResponse first = ch.basicGet(q, false);
            assertThat(first.getProps().getMessageId()).isEqualTo("m1");
            assertThat(first.getProps().getHeaders()).containsKey("h");
            assertThat(first.getEnvelope().isRedeliver()).isFalse();
            ch.close();

            Channel again = c.createChannel();
            GetResponse second = again.basicGet(q, false);
            assertThat(second.getEnvelope().isRedeliver()).isTrue();
            again.basicAck(second.getEnvelope().getDeliveryTag(), false);
            assertThat(again.basicGet(q, false)).isNull();
        }
    }

    @Test
    void refusesRabbitMqQueueArgumentsByClosingTheConnection() throws Exception {
        for (String argument : new String[] {"x-message-ttl", "x-dead-letter-exchange", "x-queue-type"}) {
            Object value = argument.equals("x-message-ttl") ? (Object) 1000 : (Object) "quorum";
            Connection c = factory.newConnection();
            Channel ch = c.createChannel();
            assertThatThrownBy(() -> ch.queueDeclare("q-" + argument, true, false, false, Map.of(argument, value)))
                    .as(argument).hasStackTraceContaining("reply-code=542")
                    .hasStackTraceContaining("Unsupported queue declare argument");
            assertThat(c.isOpen()).as("the whole connection is closed, not only the channel").isFalse();
        }
    }

    @Test
    void rejectWithoutRequeueStillRequeues() throws Exception {
        try (Connection c = factory.newConnection()) {
            Channel ch = c.createChannel();
            ch.confirmSelect();
            String q = ch.queueDeclare("q-reject", true, false, false, null).getQueue();
            ch.basicPublish("", q, null, "x".getBytes(StandardCharsets.UTF_8));
            ch.waitForConfirmsOrDie(5000);
            GetResponse r = ch.basicGet(q, false);
            ch.basicReject(r.getEnvelope().getDeliveryTag(), false);
            GetResponse back = ch.basicGet(q, false);
            assertThat(back).as("RabbitMQ would drop it; Qpid puts it back").isNotNull();
            assertThat(back.getProps().getHeaders() == null
                    || !back.getProps().getHeaders().containsKey("x-death")).isTrue();
            ch.basicAck(back.getEnvelope().getDeliveryTag(), false);
        }
    }
}
