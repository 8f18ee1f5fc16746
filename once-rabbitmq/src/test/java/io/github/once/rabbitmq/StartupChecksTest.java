package io.github.once.rabbitmq;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.StoreMisconfiguredException;
import io.github.once.StoreUnavailableException;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.redis.RedisIdempotencyStore;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.UUID;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.postgresql.ds.PGSimpleDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a first run gets wrong fails at {@code start()} (or at connecting) with one message that says how to fix
 * it, against the real RabbitMQ, PostgreSQL and a private redis-server: a missing record table, Redis gone, a
 * missing work queue, and RabbitMQ not listening where the factory points.
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
    void redisThatIsDownFailsTheStartNamingWhereItWasSought() throws Exception {
        try (PrivateRedis redis = new PrivateRedis()) {
            redis.start();
            RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(redis.uri()).build();
            try {
                redis.kill();
                OnceConsumer consumer = consumer(Idempotency.builder(store).build())
                        .topology(Topology.declareAll(Topology.QueueType.CLASSIC)).build();
                assertThatThrownBy(consumer::start)
                        .isInstanceOf(StoreUnavailableException.class)
                        .hasMessageContaining("redis://127.0.0.1:" + redis.port)
                        .hasMessageContaining("check that Redis runs there");
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

        assertThatThrownBy(() -> RabbitConnections.open(factory, "orders"))
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
