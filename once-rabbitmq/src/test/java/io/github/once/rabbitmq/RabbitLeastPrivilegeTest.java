package io.github.once.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.rabbitnode.PrivateRabbit;
import io.github.once.tls.TestCertificates;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The least RabbitMQ permissions a consumer needs, on a private node (over TLS, as in production): configure on
 * the queues Once declares for its work queue, write on the default exchange it publishes retries and dead
 * letters to, read on the work queue and its delay queues. A user with exactly these runs the consumer through
 * retries to the dead-letter queue; without one of them the start fails with ACCESS_REFUSED naming the resource.
 * The regexes are the ones docs/security.md gives; each user has a work queue of its own.
 */
class RabbitLeastPrivilegeTest {
    private static final String PASSWORD = "least-s3cret-77a2";

    /** docs/security.md's configure permission for the work queue {@code queue} (a name without dots). */
    static String configure(String queue) {
        return "^" + queue + "(\\.once\\.(dlq|delay\\.[0-9]+))?$";
    }

    static final String WRITE = "^amq\\.default$";

    static String read(String queue) {
        return "^" + queue + "(\\.once\\.delay\\.[0-9]+)?$";
    }

    private static PrivateRabbit rabbit;

    @BeforeAll
    static void startNode() throws Exception {
        // Each user has a work queue of its own, so no test finds queues another one declared.
        rabbit = PrivateRabbit.start(
                user("once-app", configure("orders"), WRITE, read("orders")),
                user("once-no-configure", "^payments$", WRITE, read("payments")),
                user("once-no-write", configure("refunds"), "^$", read("refunds")),
                user("once-no-read", configure("invoices"), WRITE, "^$"),
                user("once-no-read-work", configure("credits"), WRITE, "^credits\\.once\\.delay\\.[0-9]+$"));
    }

    private static PrivateRabbit.User user(String name, String configure, String write, String read) {
        return new PrivateRabbit.User(name, PASSWORD, configure, write, read);
    }

    @AfterAll
    static void stopNode() {
        if (rabbit != null) {
            rabbit.close(); // users, queues and all: the node's data goes with it
        }
    }

    private static ConnectionFactory as(String user) {
        ConnectionFactory f = rabbit.factory("127.0.0.1", TestCertificates.trusting(rabbit.certs.ca));
        f.setUsername(user);
        f.setPassword(PASSWORD);
        return f;
    }

    private static OnceConsumer.Builder consumer(Connection connection, String queue, MessageHandler handler) {
        return OnceConsumer.builder(connection, queue,
                        Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build())
                .handler(handler)
                .retry(RetryPolicy.builder().maxAttempts(2).backoff(Duration.ofMillis(200)).build())
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC));
    }

    @Test
    void aUserWithExactlyThesePermissionsRunsTheConsumerThroughRetriesToTheDeadLetterQueue() throws Exception {
        AtomicInteger effects = new AtomicInteger();
        AtomicInteger poisonAttempts = new AtomicInteger();
        try (Connection app = OnceConsumer.connect(as("once-app"), "least-privilege");
             OnceConsumer c = consumer(app, "orders", (delivery, ctx) -> {
                 if (ctx.key().id().startsWith("poison")) {
                     poisonAttempts.incrementAndGet();
                     throw new IllegalStateException("poison");
                 }
                 effects.incrementAndGet();
             }).build().start();
             Connection producer = rabbit.factory("127.0.0.1", TestCertificates.trusting(rabbit.certs.ca))
                     .newConnection("least-privilege-producer");
             OncePublisher publisher = OncePublisher.builder(producer).build()) {
            publisher.publish(OutboundMessage.of("", "orders", "{}".getBytes(StandardCharsets.UTF_8))
                    .withMessageId("order-1"));
            publisher.publish(OutboundMessage.of("", "orders", "{}".getBytes(StandardCharsets.UTF_8))
                    .withMessageId("order-1"));
            publisher.publish(OutboundMessage.of("", "orders", "{}".getBytes(StandardCharsets.UTF_8))
                    .withMessageId("poison-1"));

            Channel check = producer.createChannel();
            String dlq = Topology.deadLetterQueue("orders");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(check.queueDeclarePassive(dlq).getMessageCount()).isEqualTo(1);
                assertThat(check.queueDeclarePassive("orders").getMessageCount()).isZero();
            });
            assertThat(effects).hasValue(1);
            assertThat(poisonAttempts).hasValue(2); // the second attempt came back through a delay queue
            assertThat(c.state()).isEqualTo(OnceConsumer.State.RUNNING);
            check.queueDelete(dlq);
        }
    }

    @Test
    void withoutConfigureOnTheRetryQueuesTheStartFailsNamingTheQueue() throws Exception {
        try (Connection app = OnceConsumer.connect(as("once-no-configure"), "no-configure")) {
            assertThatThrownBy(() -> consumer(app, "payments", (d, ctx) -> { }).build().start())
                    .isInstanceOf(OnceConsumer.StartupException.class)
                    .hasMessageContaining("refused to declare the queues of 'payments' (403 ACCESS_REFUSED - access"
                            + " to queue 'payments.once.dlq' in vhost '/' refused for user 'once-no-configure')")
                    .hasMessageContaining("docs/security.md")
                    .hasMessageNotContaining(PASSWORD);
        }
    }

    @Test
    void withoutWriteOnTheDefaultExchangeTheStartFailsNamingIt() throws Exception {
        // Checked when a delay queue that dead-letters to it is declared, before any retry is published.
        try (Connection app = OnceConsumer.connect(as("once-no-write"), "no-write")) {
            assertThatThrownBy(() -> consumer(app, "refunds", (d, ctx) -> { }).build().start())
                    .isInstanceOf(OnceConsumer.StartupException.class)
                    .hasMessageContaining("ACCESS_REFUSED - access to exchange 'amq.default' in vhost '/' refused"
                            + " for user 'once-no-write'")
                    .hasMessageNotContaining(PASSWORD);
        }
    }

    @Test
    void withoutReadOnTheWorkAndDelayQueuesTheStartFailsNamingTheQueue() throws Exception {
        try (Connection app = OnceConsumer.connect(as("once-no-read"), "no-read")) {
            // A delay queue dead-letters into the work queue: declaring it needs read on it (and write on the
            // exchange it dead-letters to), so the refusal comes at the first delay queue.
            assertThatThrownBy(() -> consumer(app, "invoices", (d, ctx) -> { }).build().start())
                    .isInstanceOf(OnceConsumer.StartupException.class)
                    .hasMessageContaining("ACCESS_REFUSED - access to queue 'invoices.once.delay.200' in vhost '/'"
                            + " refused for user 'once-no-read'")
                    .hasMessageNotContaining(PASSWORD);
        }
    }

    @Test
    void withoutReadOnTheWorkQueueConsumingIsRefusedNamingIt() throws Exception {
        try (Connection app = OnceConsumer.connect(as("once-no-read-work"), "no-read-work")) {
            assertThatThrownBy(() -> consumer(app, "credits", (d, ctx) -> { }).build().start())
                    .isInstanceOf(OnceConsumer.StartupException.class)
                    .hasMessageContaining("refused to consume from 'credits' (403 ACCESS_REFUSED - access to queue"
                            + " 'credits' in vhost '/' refused for user 'once-no-read-work')")
                    .hasMessageNotContaining(PASSWORD);
        }
    }

    /** The permissions docs/security.md tells users to set are the ones these tests run with. */
    @Test
    void docsGiveThesePermissions() throws Exception {
        String docs = Files.readString(Path.of("..", "docs", "security.md"));
        assertThat(docs).contains("'" + configure("orders") + "' '" + WRITE + "' '" + read("orders") + "'");
    }
}
