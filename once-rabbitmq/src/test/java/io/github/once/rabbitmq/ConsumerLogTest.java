package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.testkit.FaultProxy;

import java.nio.charset.StandardCharsets;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.event.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a user sees in the log by default, captured from a real consumer on the real RabbitMQ: one line at start,
 * a WARN per failed attempt and per dead letter (with the missing key's detail), one ERROR for a store error that
 * waiting will not heal (then quiet), and the broker connection's loss and recovery, with {@code state()}.
 */
class ConsumerLogTest {

    private final RabbitFixture rabbit = new RabbitFixture();
    private final CapturedLog captured = new CapturedLog(Level.INFO);

    @AfterEach
    void cleanUp() throws Exception {
        rabbit.close();
    }

    private ProcessingLog log() {
        return ProcessingLog.builder().logger(captured).queue(rabbit.queue).build();
    }

    private static AMQP.BasicProperties persistent() {
        return new AMQP.BasicProperties.Builder().deliveryMode(2).build();
    }

    @Test
    void startFailuresAndDeadLettersAreLoggedWithWhatToLookAt() throws Exception {
        RetryPolicy retry = rabbit.remember(RetryPolicy.builder().maxAttempts(2)
                .backoff(Duration.ofMillis(100)).build());
        OnceConsumer consumer = rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue,
                        Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build())
                .keyExtractor(KeyExtractor.jsonBody("order_id"))
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .retry(retry)
                .processingLog(log())
                .handler((d, ctx) -> {
                    throw new IllegalStateException("no stock for " + ctx.key().id());
                })
                .build()
                .start());

        assertThat(captured.lines("Consumer started")).singleElement().satisfies(line -> {
            assertThat(line.level()).isEqualTo(Level.INFO);
            assertThat(line.pairs()).containsEntry("queue", rabbit.queue).containsEntry("namespace", rabbit.queue)
                    .containsEntry("store", "InMemoryIdempotencyStore").containsEntry("key", "jsonBody(order_id)")
                    .containsEntry("prefetch", 50).containsEntry("channels", 1);
        });

        Channel ch = rabbit.admin();
        ch.basicPublish("", rabbit.queue, persistent(), "{\"order_id\":\"A-1\"}".getBytes(StandardCharsets.UTF_8));
        ch.basicPublish("", rabbit.queue, persistent(), "{\"sku\":\"book\"}".getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(15)).until(() -> captured.lines("Delivery dead-lettered").size() == 2);

        assertThat(captured.lines("Delivery retried-failed")).singleElement().satisfies(line -> {
            assertThat(line.level()).isEqualTo(Level.WARN);
            assertThat(line.pairs()).containsEntry("key", "A-1").containsEntry("attempt", 1)
                    .containsEntry("nextAttempt", 2)
                    .containsEntry("cause", "java.lang.IllegalStateException: no stock for A-1");
        });
        assertThat(captured.lines("Delivery dead-lettered")).allSatisfy(line ->
                assertThat(line.level()).isEqualTo(Level.WARN));
        assertThat(captured.lines("Delivery dead-lettered")).anySatisfy(line -> {
            assertThat(line.pairs()).containsEntry("key", "A-1").containsEntry("reason", "max-attempts")
                    .containsEntry("attempt", 2)
                    .containsEntry("cause", "java.lang.IllegalStateException: no stock for A-1");
            assertThat(line.cause()).hasMessage("no stock for A-1");
        });
        assertThat(captured.lines("Delivery dead-lettered")).anySatisfy(line ->
                assertThat(line.pairs()).containsEntry("reason", "missing-key")
                        .containsEntry("detail", "body field order_id is absent").doesNotContainKey("key"));
        consumer.close();
    }

    @Test
    void aStoreErrorThatWaitingWillNotHealIsOneErrorLineThenQuietUntilFixed() throws Exception {
        String table = "once_dropped_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        PGSimpleDataSource db = StartupChecksTest.postgresql();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db).tableName(table).createTableIfMissing(true)
                .build();
        AtomicInteger handled = new AtomicInteger();
        try {
            OnceConsumer consumer = rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue,
                            Idempotency.builder(store).transactional().build())
                    .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                    .storeBackoff(Duration.ofMillis(20), Duration.ofMillis(100))
                    .processingLog(log())
                    .handler((d, ctx) -> handled.incrementAndGet())
                    .build()
                    .start());
            drop(db, table); // a migration rolled back under a running consumer

            rabbit.admin().basicPublish("", rabbit.queue, new AMQP.BasicProperties.Builder().messageId("m-1")
                    .deliveryMode(2).build(), "{}".getBytes(StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(10)).until(() -> !errors().isEmpty());
            // Dozens of probes fail meanwhile (back-off at most 100 ms); the log says it once.
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> errors().size() == 1);
            CapturedLog.Line error = errors().get(0);
            assertThat(error.message()).isEqualTo("Consumption paused: the store refuses the work, and waiting will"
                    + " not fix it");
            assertThat((String) error.get("cause")).contains("StoreMisconfiguredException")
                    .contains("V1__once_record.sql");
            assertThat(captured.lines().stream().filter(l -> l.level().toInt() >= Level.WARN.toInt())).hasSize(1);
            assertThat(consumer.state()).isEqualTo(OnceConsumer.State.PAUSED);
            assertThat(consumer.isPaused()).isTrue();
            assertThat(handled.get()).as("nothing runs unguarded").isZero();

            JdbcIdempotencyStore.builder(db).tableName(table).createTableIfMissing(true).build(); // fixed
            await().atMost(Duration.ofSeconds(10)).until(() -> handled.get() == 1
                    && consumer.state() == OnceConsumer.State.RUNNING);
            await().atMost(Duration.ofSeconds(5)).until(() -> !captured.lines("Consumption resumed").isEmpty());
        } finally {
            drop(db, table);
        }
    }

    @Test
    void aLostConnectionIsDisconnectedAndItsRecoveryLogged() throws Exception {
        try (FaultProxy proxy = new FaultProxy("127.0.0.1", 5672)) {
            ConnectionFactory f = RabbitFixture.factory();
            f.setPort(proxy.port());
            Connection viaProxy = f.newConnection("once-test-proxied");
            rabbit.track(viaProxy::abort);
            OnceConsumer consumer = rabbit.track(OnceConsumer.builder(viaProxy, rabbit.queue,
                            Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build())
                    .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                    .channels(2)
                    .processingLog(log())
                    .handler((d, ctx) -> { })
                    .build()
                    .start());
            assertThat(consumer.state()).isEqualTo(OnceConsumer.State.RUNNING);

            proxy.block();
            await().atMost(Duration.ofSeconds(10)).until(() -> consumer.state() == OnceConsumer.State.DISCONNECTED);
            assertThat(consumer.isPaused()).isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() ->
                    captured.lines("Connection to the broker lost; waiting for automatic recovery").size() == 1);
            assertThat(captured.lines("Connection to the broker lost; waiting for automatic recovery").get(0)
                    .pairs()).containsEntry("broker", "127.0.0.1:" + proxy.port());

            proxy.restore();
            await().atMost(Duration.ofSeconds(15)).until(() -> consumer.state() == OnceConsumer.State.RUNNING);
            await().atMost(Duration.ofSeconds(5)).until(() ->
                    captured.lines("Connection to the broker recovered").size() == 1);
            assertThat(captured.lines("Connection to the broker recovered").get(0).level()).isEqualTo(Level.INFO);
            assertThat(captured.lines("Connection to the broker lost; waiting for automatic recovery"))
                    .as("one line for the consumer, not one per channel").hasSize(1);
        }
    }

    private java.util.List<CapturedLog.Line> errors() {
        return captured.lines().stream().filter(l -> l.level() == Level.ERROR).toList();
    }

    private static void drop(PGSimpleDataSource db, String table) throws Exception {
        try (java.sql.Connection c = db.getConnection(); Statement st = c.createStatement()) {
            st.execute("DROP TABLE IF EXISTS " + table);
        }
    }
}
