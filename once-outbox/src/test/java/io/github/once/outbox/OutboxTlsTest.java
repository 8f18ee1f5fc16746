package io.github.once.outbox;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;

import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.OutboundMessage;
import io.github.once.rabbitnode.PrivateRabbit;
import io.github.once.tls.TestCertificates;
import io.github.once.tls.TlsPostgres;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The relay with both its links over TLS, certificates checked: PostgreSQL with {@code sslmode=verify-full} (a
 * private hostssl-only server) and AMQP over TLS (a private TLS-only RabbitMQ node), certificates made here. The
 * relay runs with the least rights it needs: a PostgreSQL role with SELECT and UPDATE on the outbox table, a
 * RabbitMQ user with write on the exchange it publishes to and nothing else. An untrusted broker
 * certificate fails the relay's connection, and a wrong root certificate its start, each naming the problem.
 */
class OutboxTlsTest {
    private static final String RELAY = "once_relay";
    private static final String RELAY_PASSWORD = "relay-s3cret-93d0";

    private static Path dir;
    private static PrivateRabbit rabbit;
    private static TlsPostgres pg;

    @BeforeAll
    static void startServers() throws Exception {
        dir = Files.createTempDirectory("once-outbox-tls");
        TestCertificates certs = TestCertificates.make(dir.resolve("certs"));
        pg = TlsPostgres.start(certs);
        // On the broker: write on the one exchange its rows name (here the default exchange), nothing else.
        rabbit = PrivateRabbit.start(certs,
                new PrivateRabbit.User("once-relay", RELAY_PASSWORD, "^$", "^amq\\.default$", "^$"));
        try (java.sql.Connection c = pg.admin(TlsPostgres.DATABASE)) {
            Outbox.createTable(c, Outbox.DEFAULT_TABLE);
        }
        pg.asAdmin("CREATE ROLE " + RELAY + " LOGIN PASSWORD '" + RELAY_PASSWORD + "'",
                "GRANT SELECT, UPDATE ON " + Outbox.DEFAULT_TABLE + " TO " + RELAY);
    }

    @AfterAll
    static void stopServers() throws Exception {
        try {
            if (rabbit != null) {
                rabbit.close();
            }
        } finally {
            try {
                if (pg != null) {
                    pg.close();
                }
            } finally {
                new ProcessBuilder("rm", "-rf", dir.toString()).start().waitFor();
            }
        }
    }

    private static PGSimpleDataSource relayDataSource(Path rootCert) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setURL(pg.url("127.0.0.1", rootCert));
        ds.setUser(RELAY);
        ds.setPassword(RELAY_PASSWORD);
        ds.setConnectTimeout(5);
        return ds;
    }

    @Test
    void relayWithLeastRightsOverVerifiedTlsToPostgresqlAndRabbitmqPublishesTheCommittedRow() throws Exception {
        String queue = "tls-outbox-orders";
        try (java.sql.Connection app = pg.admin(TlsPostgres.DATABASE)) {
            app.setAutoCommit(false);
            Outbox.defaults().write(app, OutboundMessage.of("", queue, "{\"order\":7}".getBytes(StandardCharsets.UTF_8))
                    .withMessageId("order-7-created"));
            app.commit();
        }
        ConnectionFactory asRelay = rabbit.factory("127.0.0.1", TestCertificates.trusting(rabbit.certs.ca));
        asRelay.setUsername("once-relay");
        asRelay.setPassword(RELAY_PASSWORD);
        try (Connection admin = rabbit.factory("127.0.0.1", TestCertificates.trusting(rabbit.certs.ca))
                     .newConnection("tls-relay-admin");
             Connection connection = OnceConsumer.connect(asRelay, "tls-relay")) {
            Channel channel = admin.createChannel();
            channel.queueDeclare(queue, true, false, false, null);
            try (OutboxRelay relay = OutboxRelay.builder(relayDataSource(rabbit.certs.ca), connection)
                    .pollInterval(Duration.ofMillis(50)).build().start()) {
                AtomicReference<GetResponse> got = new AtomicReference<>();
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    got.compareAndSet(null, channel.basicGet(queue, true));
                    return got.get() != null && sent() == 1;
                });
                assertThat(got.get().getProps().getMessageId()).isEqualTo("order-7-created");
                assertThat(new String(got.get().getBody(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":7}");
            }
            channel.queueDelete(queue);
        }
    }

    private static long sent() throws Exception {
        try (java.sql.Connection c = pg.admin(TlsPostgres.DATABASE); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM once_outbox WHERE state = 'SENT'")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void anUntrustedBrokerCertificateFailsTheRelaysConnection() {
        assertThatThrownBy(() -> OnceConsumer.connect(
                rabbit.factory("127.0.0.1", TestCertificates.trusting(rabbit.certs.otherCa)), "tls-relay-untrusted"))
                .isInstanceOf(OnceConsumer.StartupException.class)
                .hasMessageContaining("TLS with RabbitMQ at amqps://127.0.0.1:" + PrivateRabbit.PORT)
                .hasMessageContaining("PKIX path building failed");
    }

    @Test
    void aWrongRootCertificateForPostgresqlFailsTheRelaysStart() throws Exception {
        try (Connection connection = OnceConsumer.connect(
                rabbit.factory("127.0.0.1", TestCertificates.trusting(rabbit.certs.ca)), "tls-relay-wrong-root")) {
            OutboxRelay relay = OutboxRelay.builder(relayDataSource(rabbit.certs.otherCa), connection).build();
            assertThatThrownBy(relay::start)
                    .hasMessageContaining("SSL error")
                    .hasMessageContaining("PKIX path building failed")
                    .hasMessageNotContaining(RELAY_PASSWORD);
        }
    }
}
