package io.github.once.cli.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.AMQP;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class EmbeddedBrokerTest {

    @Test
    void startsAndCarriesMessagesWithAcksRedeliveryAndConfirms() throws Exception {
        long t0 = System.nanoTime();
        try (EmbeddedBroker broker = EmbeddedBroker.start()) {
            System.out.println("started in ms " + (System.nanoTime() - t0) / 1_000_000);
            ConnectionFactory f = new ConnectionFactory();
            f.setUri(broker.uri());
            try (Connection c = f.newConnection()) {
                Channel ch = c.createChannel();
                ch.confirmSelect();
                String q = ch.queueDeclare("q1", false, false, false, null).getQueue();
                ch.basicPublish("", q, new AMQP.BasicProperties.Builder().messageId("m1").build(), "x".getBytes(StandardCharsets.UTF_8));
                ch.waitForConfirmsOrDie(5000);
                GetResponse r = ch.basicGet(q, false);
                assertThat(r.getProps().getMessageId()).isEqualTo("m1");
                ch.close();
                Channel ch2 = c.createChannel();
                GetResponse again = ch2.basicGet(q, false);
                assertThat(again).isNotNull();
                assertThat(again.getEnvelope().isRedeliver()).isTrue();
                ch2.basicAck(again.getEnvelope().getDeliveryTag(), false);
            }
        }
    }
}
