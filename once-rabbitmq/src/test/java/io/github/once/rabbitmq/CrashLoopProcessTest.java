package io.github.once.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A message whose handler kills its process ({@code Runtime.halt}: no exception, nothing settled, as an
 * out-of-memory kill or a native crash) is redelivered by the broker to the next consumer, which dies too. Real
 * consumer JVMs ({@link CrashingWorker}) with Redis records and short leases, restarted whenever one dies: the
 * store counts the takeovers of the dead owners' lapsed leases, and after {@code crashLoopAfter} (3) crashes the
 * message goes to the dead-letter queue with reason {@code crash-loop}, unrun. The other 50 messages are each
 * processed exactly once meanwhile.
 */
class CrashLoopProcessTest {

    private static final int WORKERS = 2;
    private static final int MESSAGES = 50;
    private static final long LEASE_MILLIS = 1500;

    private final RabbitFixture rabbit = new RabbitFixture();
    private final String queue = rabbit.queue;
    private final String prefix = "once-crash-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final String poison = "poison-1";
    private final List<Process> workers = new ArrayList<>();
    private final AtomicInteger deaths = new AtomicInteger();
    private Path logs;

    @AfterEach
    void stopWorkers() throws Exception {
        for (Process p : workers) {
            p.destroyForcibly();
        }
        for (Process p : workers) {
            p.waitFor();
        }
        rabbit.remember(CrashingWorker.RETRY);
        rabbit.close();
    }

    private Process start(int index) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), CrashingWorker.class.getName(),
                queue, prefix, poison, Long.toString(LEASE_MILLIS));
        pb.redirectErrorStream(true);
        File log = logs.resolve("worker-" + index + "-" + deaths.get() + ".log").toFile();
        pb.redirectOutput(log);
        return pb.start();
    }

    /** Restarts every worker that died; counts the deaths. */
    private void restartDead() throws Exception {
        for (int i = 0; i < workers.size(); i++) {
            Process p = workers.get(i);
            if (!p.isAlive()) {
                assertThat(p.exitValue()).as("a worker dies only by the poison's halt(1)").isEqualTo(1);
                deaths.incrementAndGet();
                workers.set(i, start(i));
            }
        }
    }

    @Test
    void aMessageThatKillsItsProcessEndsInTheDeadLetterQueueAfterThreeCrashesAndTheOthersRunOnce() throws Exception {
        logs = Files.createDirectories(Path.of("target", "crash-loop", queue));
        for (int i = 0; i < WORKERS; i++) {
            workers.add(start(i));
        }
        // The workers declare the topology; wait for it.
        await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(200)).ignoreExceptions()
                .until(() -> rabbit.messageCount(queue) >= 0 && rabbit.messageCount(Topology.deadLetterQueue(queue)) >= 0);

        Channel ch = rabbit.admin();
        for (int i = 0; i < MESSAGES; i++) {
            if (i == MESSAGES / 5) {
                publish(ch, poison);
            }
            publish(ch, "m-" + i);
        }
        ch.close();

        try (RedisClient client = RedisClient.create(CrashingWorker.REDIS);
             StatefulRedisConnection<String, String> connection = client.connect()) {
            RedisCommands<String, String> redis = connection.sync();
            try {
                await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(250)).until(() -> {
                    restartDead();
                    return rabbit.messageCount(Topology.deadLetterQueue(queue)) == 1 && effects(redis) == MESSAGES;
                });
                restartDead();

                assertThat(deaths.get()).as("crashes before the message was dead-lettered").isEqualTo(3);
                List<GetResponse> dead = rabbit.drain(Topology.deadLetterQueue(queue));
                assertThat(dead).hasSize(1);
                AMQP.BasicProperties props = dead.get(0).getProps();
                assertThat(props.getMessageId()).isEqualTo(poison);
                assertThat(props.getHeaders().get(OnceHeaders.REASON).toString()).isEqualTo("crash-loop");
                for (int i = 0; i < MESSAGES; i++) {
                    assertThat(redis.get(CrashingWorker.effectKey(prefix, "m-" + i))).as("effects of m-%d", i)
                            .isEqualTo("1");
                }
                assertThat(workers).allMatch(Process::isAlive);
            } finally {
                List<String> keys = redis.keys(prefix + "*");
                if (!keys.isEmpty()) {
                    redis.del(keys.toArray(String[]::new));
                }
            }
        }
    }

    private int effects(RedisCommands<String, String> redis) {
        return redis.keys(prefix + "effect:*").size();
    }

    private void publish(Channel ch, String id) throws Exception {
        ch.basicPublish("", queue, new AMQP.BasicProperties.Builder().messageId(id).deliveryMode(2).build(),
                ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8));
    }
}
