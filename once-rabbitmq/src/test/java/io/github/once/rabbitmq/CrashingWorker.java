package io.github.once.rabbitmq;

import com.rabbitmq.client.Connection;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.sync.RedisCommands;

import java.time.Duration;

/**
 * A consumer process for {@link CrashLoopProcessTest}: Redis records, one channel, one message at a time. The
 * handler halts the JVM on the poison message (no shutdown hook, nothing settled, as an out-of-memory kill or a
 * native crash would) and counts every other message's effect in Redis.
 *
 * <p>Arguments: queue, Redis key prefix, poison message id, lease in milliseconds.
 */
public final class CrashingWorker {

    static final String REDIS = "redis://127.0.0.1:6379";
    static final RetryPolicy RETRY = RetryPolicy.builder().maxAttempts(3)
            .backoff(Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2)).build();

    private CrashingWorker() {
    }

    static String effectKey(String prefix, String id) {
        return prefix + "effect:" + id;
    }

    public static void main(String[] args) throws Exception {
        String queue = args[0];
        String prefix = args[1];
        String poison = args[2];
        Duration lease = Duration.ofMillis(Long.parseLong(args[3]));

        RedisCommands<String, String> effects = RedisClient.create(REDIS).connect().sync();
        RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(REDIS).keyPrefix(prefix)
                .timeout(Duration.ofSeconds(2)).build();
        Idempotency once = Idempotency.builder(store).config(IdempotencyConfig.builder().leaseDuration(lease)
                .retention(Duration.ofMinutes(10)).crashLoopAfter(3).build()).build();
        Connection connection = RabbitFixture.factory().newConnection("once-crashing-worker");
        OnceConsumer.builder(connection, queue, once)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .retry(RETRY)
                .prefetch(1)
                .handler((delivery, ctx) -> {
                    String id = delivery.getProperties().getMessageId();
                    if (poison.equals(id)) {
                        Runtime.getRuntime().halt(1);
                    }
                    effects.incr(effectKey(prefix, id));
                })
                .build()
                .start();
        System.out.println("consuming " + queue);
        System.out.flush();
        Thread.currentThread().join(); // until the test destroys this process, or the poison halts it
    }
}
