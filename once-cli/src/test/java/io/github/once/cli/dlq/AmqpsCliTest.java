package io.github.once.cli.dlq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.github.once.cli.Cli;
import io.github.once.cli.ExitCodes;
import io.github.once.cli.JvmTrustStore;
import io.github.once.rabbitmq.Topology;
import io.github.once.rabbitnode.PrivateRabbit;
import io.github.once.tls.TestCertificates;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code --amqp-uri amqps://...} on a private TLS-only RabbitMQ node: the CLI checks the broker's certificate
 * against the JVM's trust store, given as a user gives it ({@code -Djavax.net.ssl.trustStore} in JAVA_OPTS; here
 * the same system properties, set in this JVM), and the host name; a refused certificate is exit status 3 with
 * a message that names the problem and never the password.
 */
class AmqpsCliTest {
    private static final String SECRET = "amqps-s3cret-2b7e";
    private static final String QUEUE = "tls-cli-orders";

    private static PrivateRabbit rabbit;
    private final JvmTrustStore trust = new JvmTrustStore();

    @BeforeAll
    static void startNode() throws Exception {
        // The least a dlq operator needs (the last test): read on the dead-letter queue, write on the default exchange.
        rabbit = PrivateRabbit.start(new PrivateRabbit.User("once-ops", SECRET, "^$", "^amq\\.default$",
                "^tls-cli-ops\\.once\\.dlq$"));
    }

    @AfterAll
    static void stopNode() {
        if (rabbit != null) {
            rabbit.close();
        }
    }

    @AfterEach
    void restoreTrustStore() {
        trust.restore();
    }

    /** What {@code JAVA_OPTS=-Djavax.net.ssl.trustStore=... ./once ...} sets. */
    private void trustStore(Path caPem) throws IOException {
        trust.use(rabbit.certs.trustStoreFile(caPem));
    }

    @Test
    void dlqListAndMoveOverAmqpsWithTheTrustStoreFromTheJvmProperties() throws Exception {
        String dlq = Topology.deadLetterQueue(QUEUE);
        try (Connection connection = rabbit.factory("127.0.0.1", TestCertificates.trusting(rabbit.certs.ca))
                .newConnection("tls-cli-setup")) {
            Channel channel = connection.createChannel();
            channel.queueDeclare(QUEUE, true, false, false, null);
            channel.queueDeclare(dlq, true, false, false, null);
            channel.confirmSelect();
            channel.basicPublish("", dlq, new AMQP.BasicProperties.Builder().messageId("tls-m1").deliveryMode(2)
                    .build(), "{\"order\":1}".getBytes(StandardCharsets.UTF_8));
            channel.waitForConfirmsOrDie(5_000);
            trustStore(rabbit.certs.ca);

            Cli list = Cli.run("dlq", "list", QUEUE, "--amqp-uri", PrivateRabbit.uri("127.0.0.1", "guest", "guest"));
            assertThat(list.exitCode()).as(list.toString()).isZero();
            assertThat(list.out()).contains("1 dead letter", "message id  tls-m1");

            Cli move = Cli.run("dlq", "move", QUEUE, "--message-id", "tls-m1", "--amqp-uri",
                    PrivateRabbit.uri("localhost", "guest", "guest"));
            assertThat(move.exitCode()).as(move.toString()).isZero();
            await().atMost(Duration.ofSeconds(10)).until(() -> channel.messageCount(QUEUE) == 1);
            assertThat(channel.messageCount(dlq)).isZero();
            channel.queueDelete(QUEUE);
            channel.queueDelete(dlq);
        }
    }

    /** The least a dlq operator needs: read on the dead-letter queue, write on the default exchange. */
    @Test
    void dlqListAndMoveAsAUserWithReadOnTheDeadLetterQueueAndWriteOnTheDefaultExchangeOnly() throws Exception {
        String queue = "tls-cli-ops";
        String dlq = Topology.deadLetterQueue(queue);
        try (Connection connection = rabbit.factory("127.0.0.1", TestCertificates.trusting(rabbit.certs.ca))
                .newConnection("tls-cli-ops-setup")) {
            Channel channel = connection.createChannel();
            channel.queueDeclare(queue, true, false, false, null);
            channel.queueDeclare(dlq, true, false, false, null);
            channel.confirmSelect();
            channel.basicPublish("", dlq, new AMQP.BasicProperties.Builder().messageId("ops-m1").deliveryMode(2)
                    .build(), "{\"order\":2}".getBytes(StandardCharsets.UTF_8));
            channel.waitForConfirmsOrDie(5_000);
            trustStore(rabbit.certs.ca);

            String uri = PrivateRabbit.uri("127.0.0.1", "once-ops", SECRET);
            Cli list = Cli.run("dlq", "list", queue, "--amqp-uri", uri);
            assertThat(list.exitCode()).as(list.toString()).isZero();
            assertThat(list.out()).contains("message id  ops-m1");
            Cli move = Cli.run("dlq", "move", queue, "--all", "--amqp-uri", uri);
            assertThat(move.exitCode()).as(move.toString()).isZero();
            await().atMost(Duration.ofSeconds(10)).until(() -> channel.messageCount(queue) == 1);
            assertThat(channel.messageCount(dlq)).isZero();
            assertThat(list.out() + list.err() + move.out() + move.err()).doesNotContain(SECRET);
            channel.queueDelete(queue);
            channel.queueDelete(dlq);
        }
    }

    @Test
    void anUntrustedCertificateIsExitStatus3NamingTheCertificateProblem() throws Exception {
        trustStore(rabbit.certs.otherCa);

        Cli run = Cli.run("dlq", "list", QUEUE, "--amqp-uri", PrivateRabbit.uri("127.0.0.1", "guest", SECRET));
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).contains("the TLS certificate of the broker at 127.0.0.1:" + PrivateRabbit.PORT
                + " was not accepted", "PKIX path building failed", "javax.net.ssl.trustStore");
        assertThat(run.out() + run.err()).doesNotContain(SECRET);
    }

    @Test
    void aHostTheCertificateDoesNotNameIsExitStatus3() throws Exception {
        trustStore(rabbit.certs.ca);

        Cli run = Cli.run("dlq", "list", QUEUE, "--amqp-uri",
                PrivateRabbit.uri(TestCertificates.UNNAMED_HOST, "guest", SECRET));
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).contains("was not accepted",
                "No subject alternative names matching IP address " + TestCertificates.UNNAMED_HOST);
        assertThat(run.out() + run.err()).doesNotContain(SECRET);
    }

    @Test
    void theDemoAlsoRefusesABrokerWhoseCertificateTheJvmDoesNotTrust() {
        // No trust store property: the JDK's cacerts, which does not hold the test CA.
        Cli run = Cli.run("demo", "--amqp-uri", PrivateRabbit.uri("127.0.0.1", "guest", SECRET));
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).contains("the TLS certificate of the broker at 127.0.0.1:" + PrivateRabbit.PORT
                + " was not accepted", "PKIX path building failed");
        assertThat(run.out() + run.err()).doesNotContain(SECRET);
    }
}
