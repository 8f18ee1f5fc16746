package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.Idempotency;
import io.github.once.redis.RedisIdempotencyStore;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.event.Level;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * No password reaches a log line or an error: a consumer whose Redis URI carries a recognisable password and whose
 * Redis is down starts paused and logs its pauses, and a connection to RabbitMQ with a recognisable password that
 * cannot be opened fails with its message. Everything the processing log wrote (at every level), everything written
 * to standard error meanwhile (other loggers), the store's description and the errors are scanned.
 */
class SecretsInLogsTest {
    private static final String REDIS_SECRET = "redis-s3cret-3b9d";
    private static final String AMQP_SECRET = "amqp-s3cret-c41e";

    private final RabbitFixture rabbit = new RabbitFixture();
    private final CapturedLog captured = new CapturedLog(Level.TRACE);
    private final PrintStream err = System.err;
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

    @AfterEach
    void cleanUp() throws Exception {
        System.setErr(err);
        rabbit.close();
    }

    @Test
    void noPasswordInLogsOrErrors() throws Exception {
        System.setErr(new PrintStream(stderr, true, StandardCharsets.UTF_8));
        int nothingThere;
        try (ServerSocket s = new ServerSocket(0)) {
            nothingThere = s.getLocalPort();
        }
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder()
                .uri("redis://:" + REDIS_SECRET + "@127.0.0.1:" + nothingThere).timeout(Duration.ofMillis(300)).build()) {
            OnceConsumer consumer = rabbit.track(OnceConsumer.builder(rabbit.connect(), rabbit.queue,
                            Idempotency.builder(store).build())
                    .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                    .storeBackoff(Duration.ofMillis(50), Duration.ofMillis(100))
                    .processingLog(ProcessingLog.builder().logger(captured).queue(rabbit.queue).build())
                    .handler((d, ctx) -> { })
                    .build().start());
            rabbit.admin().basicPublish("", rabbit.queue, new AMQP.BasicProperties.Builder().messageId("m-1").build(),
                    "x".getBytes(StandardCharsets.UTF_8));
            // Paused at start, then a delivery probes the store, which fails again: pause lines with their cause.
            await().atMost(Duration.ofSeconds(20)).until(() -> captured.lines().stream()
                    .filter(l -> l.level() == Level.WARN || l.level() == Level.ERROR).count() >= 1
                    && consumer.isPaused());
            assertThat(store.toString()).contains("127.0.0.1:" + nothingThere).doesNotContain(REDIS_SECRET);
        }

        ConnectionFactory factory = RabbitFixture.factory();
        factory.setPassword(AMQP_SECRET);
        factory.setPort(nothingThere);
        assertThatThrownBy(() -> OnceConsumer.connect(factory, "secrets"))
                .isInstanceOf(OnceConsumer.StartupException.class)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(AMQP_SECRET));

        StringBuilder logged = new StringBuilder(stderr.toString(StandardCharsets.UTF_8));
        for (CapturedLog.Line line : captured.lines()) {
            logged.append(line.message()).append(' ').append(line.pairs()).append(' ')
                    .append(line.cause() == null ? "" : line.cause().toString()).append('\n');
        }
        assertThat(logged.toString()).as("what was logged").contains("127.0.0.1:" + nothingThere)
                .doesNotContain(REDIS_SECRET).doesNotContain(AMQP_SECRET);
    }
}
