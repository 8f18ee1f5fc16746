package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;

import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.StoreMisconfiguredException;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.redis.RedisIdempotencyStore;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * What a first run gets wrong fails at {@code start()} (or at connecting) with one message that says how to fix
 * it, against the real RabbitMQ, PostgreSQL and a private redis-server: a missing record table, a missing work
 * queue, and RabbitMQ not listening where the factory points; a failed start leaves nothing running. Redis that
 * is down is not such a mistake: the consumer starts paused and resumes when Redis is back.
 */
class StartupChecksTest {

    private final RabbitFixture rabbit = new RabbitFixture();

    @AfterEach
    void cleanUp() throws Exception {
        rabbit.close();
    }

    private OnceConsumer.Builder consumer(Idempotency once) throws Exception {
        return OnceConsumer.builder(rabbit.connect(), rabbit.queue, once).handler((d, ctx) -> { });
    }

    @Test
    void aMissingRecordTableOnPostgresqlNamesTheScriptAndTheDemoSetting() throws Exception {
        String table = "once_missing_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(postgresql()).tableName(table).build();
        OnceConsumer consumer = consumer(Idempotency.builder(store).transactional().build())
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC)).build();

        assertThatThrownBy(consumer::start)
                .isInstanceOf(StoreMisconfiguredException.class)
                .hasMessageContaining("The record table '" + table + "'")
                .hasMessageContaining("db/once/postgresql/V1__once_record.sql")
                .hasMessageContaining("createTableIfMissing(true)");
        assertThat(queueExists(rabbit.queue)).as("nothing declared before the store check").isFalse();
    }

    @Test
    void redisThatIsDownStartsThePausedConsumerWhichResumesWhenRedisIsBack() throws Exception {
        try (PrivateRedis redis = new PrivateRedis()) {
            redis.start();
            RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(redis.uri()).build();
            try {
                redis.kill();
                RecordingListener listener = new RecordingListener();
                AtomicInteger effects = new AtomicInteger();
                OnceConsumer consumer = consumer(Idempotency.builder(store).build())
                        .handler((d, ctx) -> effects.incrementAndGet())
                        .topology(Topology.declareAll(Topology.QueueType.CLASSIC)).listener(listener)
                        // The first back-off is the window in which it must take nothing: long enough that no
                        // stall between start() and the check below outlasts it (100 ms did, on a loaded machine).
                        .storeBackoff(Duration.ofSeconds(5), Duration.ofSeconds(5)).build().start();
                try {
                    assertThat(consumer.state()).isEqualTo(OnceConsumer.State.PAUSED);
                    assertThat(consumerCount(rabbit.queue)).as("no delivery taken while paused").isZero();
                    redis.start();
                    // The next deliveries probe the store, as after an outage.
                    rabbit.admin().basicPublish("", rabbit.queue, new AMQP.BasicProperties.Builder()
                            .messageId("after-start").build(), "m".getBytes(StandardCharsets.UTF_8));
                    await().atMost(Duration.ofSeconds(30)).until(() -> effects.get() == 1
                            && consumer.state() == OnceConsumer.State.RUNNING);
                    assertThat(listener.resumes.get()).isEqualTo(1);
                } finally {
                    consumer.close();
                }
            } finally {
                store.close();
            }
        }
    }

    @Test
    void aMissingWorkQueueFailsBeforeItsRetryQueuesAreDeclared() throws Exception {
        OnceConsumer consumer = consumer(Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build()).build();

        assertThatThrownBy(consumer::start)
                .isInstanceOf(OnceConsumer.StartupException.class)
                .hasMessageContaining("The work queue '" + rabbit.queue + "' does not exist on RabbitMQ at 127.0.0.1:5672")
                .hasMessageContaining(".topology(Topology.declareAll(Topology.QueueType.CLASSIC))");
        assertThat(queueExists(Topology.deadLetterQueue(rabbit.queue))).as("no dead-letter queue for a missing queue")
                .isFalse();
        assertThat(queueExists(Topology.delayQueue(rabbit.queue, RetryPolicy.defaults().backoff().get(0)))).isFalse();
    }

    @Test
    void rabbitmqNotListeningIsNamedWithItsHostAndPort() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        ConnectionFactory factory = RabbitFixture.factory();
        factory.setPort(closedPort);

        assertThatThrownBy(() -> OnceConsumer.connect(factory, "orders"))
                .isInstanceOf(OnceConsumer.StartupException.class)
                .hasMessageContaining("Cannot reach RabbitMQ at amqp://127.0.0.1:" + closedPort)
                .hasMessageContaining("Connection refused")
                .hasMessageContaining("ConnectionFactory.setHost and setPort");
    }

    @Test
    void aClosedConnectionIsNamedAtStart() throws Exception {
        com.rabbitmq.client.Connection connection = rabbit.connect();
        OnceConsumer consumer = OnceConsumer.builder(connection, rabbit.queue,
                Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build()).handler((d, ctx) -> { }).build();
        connection.close();

        assertThatThrownBy(consumer::start)
                .isInstanceOf(OnceConsumer.StartupException.class)
                .hasMessageContaining("The connection to RabbitMQ at 127.0.0.1:5672 is closed");
    }

    /**
     * A start that fails leaves nothing behind: no consumer on the queue, no worker thread, the
     * consumer closed. Each step fails for real: the store's check (a missing table), the work queue's check (no
     * queue), the topology (the queue exists with other arguments), consuming (another connection holds the queue
     * exclusively), a channel's open (the connection has no channel left for the third worker) and the connection's
     * check (a closed connection).
     */
    @Test
    void aStartThatFailsAtAnyStepLeavesNoConsumerAndNoThread() throws Exception {
        Idempotency memory = Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build();
        String table = "once_missing_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        Idempotency missingTable = Idempotency.builder(JdbcIdempotencyStore.builder(postgresql()).tableName(table)
                .build()).transactional().build();

        // The store's check: nothing declared, nothing consuming.
        assertStartFailsAndLeavesNothing(consumer(missingTable).channels(2)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC)).build(), null);
        // The work queue's check.
        assertStartFailsAndLeavesNothing(consumer(memory).channels(2).build(), null);

        // The topology: the work queue exists as a non-durable queue, Once declares it durable.
        rabbit.admin().queueDeclare(rabbit.queue, false, false, false, null);
        assertStartFailsAndLeavesNothing(consumer(memory).channels(2)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC)).build(), rabbit.queue);

        // Consuming: another connection consumes the queue exclusively, so every channel's basic.consume is refused.
        Channel holder = rabbit.connect().createChannel();
        holder.basicConsume(rabbit.queue, false, "holder", false, true, null, new DefaultConsumer(holder));
        assertStartFailsAndLeavesNothing(consumer(memory).channels(2).build(), rabbit.queue);
        holder.close();

        // A channel's open: the connection allows two channels, so the third worker finds none left after the first
        // two have begun consuming; theirs must be cancelled.
        ConnectionFactory narrow = RabbitFixture.factory();
        narrow.setRequestedChannelMax(2);
        Connection two = narrow.newConnection("two-channels");
        try {
            assertThat(assertStartFailsAndLeavesNothing(OnceConsumer.builder(two, rabbit.queue, memory).channels(3)
                    .handler((d, ctx) -> { }).build(), rabbit.queue)).hasMessageContaining("no channel left");
        } finally {
            two.close();
        }
        // The connection's check: a closed connection.
        assertThat(assertStartFailsAndLeavesNothing(OnceConsumer.builder(two, rabbit.queue, memory).channels(2)
                .handler((d, ctx) -> { }).build(), rabbit.queue)).hasMessageContaining("is closed");
    }

    private Throwable assertStartFailsAndLeavesNothing(OnceConsumer consumer, String existingQueue) throws Exception {
        long before = existingQueue == null ? 0 : consumerCount(existingQueue);
        Throwable thrown = catchThrowable(consumer::start);
        assertThat(thrown).isInstanceOfAny(IOException.class, RuntimeException.class);
        assertThat(consumer.state()).isEqualTo(OnceConsumer.State.CLOSED);
        assertThat(Thread.getAllStackTraces().keySet()).as("worker threads")
                .noneMatch(t -> t.isAlive() && t.getName().startsWith("once-consumer-" + rabbit.queue + "-"));
        if (existingQueue != null) {
            assertThat(consumerCount(existingQueue)).as("consumers of the queue").isEqualTo(before);
        }
        return thrown;
    }

    private int consumerCount(String queue) throws Exception {
        return rabbit.admin().queueDeclarePassive(queue).getConsumerCount();
    }

    /** The local PostgreSQL, without a pool: a connection per call. */
    static PGSimpleDataSource postgresql() {
        PGSimpleDataSource db = new PGSimpleDataSource();
        db.setUrl(JdbcTransactionalVariant.DIRECT_URL);
        db.setUser("postgres");
        return db;
    }

    private boolean queueExists(String name) throws Exception {
        Channel ch = rabbit.admin();
        try {
            ch.queueDeclarePassive(name);
            return true;
        } catch (IOException e) {
            return false;
        } finally {
            if (ch.isOpen()) {
                ch.close();
            }
        }
    }
}
