package io.github.once.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.tls.TestCertificates;
import io.github.once.rabbitnode.PrivateRabbit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import javax.net.ssl.SSLHandshakeException;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A Once consumer and publisher over AMQP with TLS, on a private RabbitMQ node that speaks only TLS, with
 * certificates made here: the broker's certificate is checked against the test CA and must name the host; an
 * untrusted certificate or a host it does not name fails the connection with a message that says so.
 */
class AmqpTlsTest {
    /** Never sent: the handshake fails before the client logs in, and no error may show it. */
    private static final String SECRET = "tls-s3cret-40c1";

    private static PrivateRabbit rabbit;

    @BeforeAll
    static void startNode() throws Exception {
        rabbit = PrivateRabbit.start();
    }

    @AfterAll
    static void stopNode() {
        if (rabbit != null) {
            rabbit.close();
        }
    }

    @Test
    void consumerAndPublisherOverVerifiedTlsRunEachMessageOnce() throws Exception {
        ConnectionFactory factory = rabbit.factory("127.0.0.1", TestCertificates.trusting(rabbit.certs.ca));
        String queue = "tls-orders";
        AtomicInteger effects = new AtomicInteger();
        try (Connection connection = OnceConsumer.connect(factory, "tls-consumer");
             OnceConsumer consumer = OnceConsumer.builder(connection, queue,
                             Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build())
                     .handler((delivery, ctx) -> effects.incrementAndGet())
                     .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                     .build().start();
             OncePublisher publisher = OncePublisher.builder(connection).build()) {
            OutboundMessage order = OutboundMessage.of("", queue, "{\"order\":1}".getBytes(StandardCharsets.UTF_8))
                    .withMessageId("order-1");
            publisher.publish(order);
            publisher.publish(order); // the re-send: the same message_id

            Channel check = connection.createChannel();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(check.queueDeclarePassive(queue).getMessageCount()).isZero();
                assertThat(consumer.state()).isEqualTo(OnceConsumer.State.RUNNING);
                assertThat(effects).hasValue(1);
            });
            assertThat(check.queueDeclarePassive(Topology.deadLetterQueue(queue)).getMessageCount()).isZero();
            assertThat(factory.isSSL()).isTrue();
        }
    }

    @Test
    void anUntrustedCertificateFailsTheConnectionNamingTheCertificateProblem() {
        ConnectionFactory factory = rabbit.factory("127.0.0.1", TestCertificates.trusting(rabbit.certs.otherCa));
        factory.setPassword(SECRET);

        assertThatThrownBy(() -> OnceConsumer.connect(factory, "tls-untrusted"))
                .isInstanceOf(OnceConsumer.StartupException.class)
                .hasMessageContaining("TLS with RabbitMQ at amqps://127.0.0.1:" + PrivateRabbit.PORT)
                .hasMessageContaining("PKIX path building failed")
                .hasMessageContaining("trust store")
                .hasMessageNotContaining(SECRET);
    }

    @Test
    void aHostTheCertificateDoesNotNameFailsTheConnection() {
        ConnectionFactory factory = rabbit.factory(TestCertificates.UNNAMED_HOST,
                TestCertificates.trusting(rabbit.certs.ca));
        factory.setPassword(SECRET);

        assertThatThrownBy(() -> OnceConsumer.connect(factory, "tls-wrong-host"))
                .isInstanceOf(OnceConsumer.StartupException.class)
                .hasMessageContaining("amqps://" + TestCertificates.UNNAMED_HOST)
                .hasMessageContaining("No subject alternative names matching IP address "
                        + TestCertificates.UNNAMED_HOST)
                .hasMessageNotContaining(SECRET);
    }

    /**
     * Pins the amqp-client on the class path: {@code setUri("amqps://...")} alone checks the certificate against the
     * JVM's trust store (which does not hold the test CA). amqp-client 5.22.0 and older trusted every certificate
     * there; the CLI sets a verifying context itself whatever the version (AmqpsCliTest).
     */
    @Test
    void amqpClientsSetUriAloneChecksTheCertificateAgainstTheJvmTrustStore() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(PrivateRabbit.uri("127.0.0.1", "guest", SECRET));

        assertThatThrownBy(() -> factory.newConnection("tls-jvm-trust").close())
                .isInstanceOf(SSLHandshakeException.class)
                .hasMessageContaining("PKIX path building failed");
    }

    @Test
    void plainAmqpToTheTlsPortIsRefused() {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setHost("127.0.0.1");
        factory.setPort(PrivateRabbit.PORT);
        factory.setPassword(SECRET);
        factory.setConnectionTimeout(5_000);
        factory.setHandshakeTimeout(5_000);

        assertThatThrownBy(() -> OnceConsumer.connect(factory, "plain-to-tls"))
                .isInstanceOf(OnceConsumer.StartupException.class)
                .hasMessageContaining("amqp://127.0.0.1:" + PrivateRabbit.PORT)
                .hasMessageNotContaining(SECRET);
    }
}
