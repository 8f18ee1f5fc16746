package io.github.once.spring.boot;

import io.github.once.rabbitmq.OutboundMessage;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.TestPropertySource;

import static io.github.once.spring.boot.Scenarios.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store goes away at an arbitrary moment (a private redis-server of each subclass's, killed) and comes back:
 * the listener containers stop and resume, and nothing is lost (once-rabbitmq's StoreOutageContract). Each
 * subclass runs it on one kind of listener container, which the advice stops and starts.
 */
// The first connection to a private redis-server just started may take a moment.
@TestPropertySource(properties = {"spring.data.redis.timeout=2s", "once.redis.timeout=3s"})
abstract class ListenerStoreOutageContract extends ScenarioSupport {
    /** The private redis-servers of the subclasses, by port: each is its context's store. */
    private static final Map<Integer, RedisServer> SERVERS = new ConcurrentHashMap<>();

    @Value("${spring.data.redis.port}")
    int redisPort;

    /** Starts a private redis-server for a subclass, and names its context's queues and store. */
    static void register(DynamicPropertyRegistry r, String what) {
        RedisServer redis;
        try {
            redis = new RedisServer().start();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        SERVERS.put(redis.port, redis);
        Scenarios.register(r, what);
        r.add("spring.data.redis.port", () -> redis.port);
    }

    @AfterAll
    static void stopRedis(@Autowired RabbitListenerEndpointRegistry registry,
                          @Value("${spring.data.redis.port}") int port) throws InterruptedException {
        registry.stop(); // first, so no container waits for the store meanwhile
        SERVERS.remove(port).close();
    }

    RedisServer redis() {
        return SERVERS.get(redisPort);
    }

    @Test
    void storeStoppedAtAnArbitraryMomentLosesNothing() throws Exception {
        int n = 600;
        String soak = Scenarios.queue(env, "soak");
        List<String> ids = new ArrayList<>();
        List<OutboundMessage> messages = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add("arbitrary-" + i + "-" + UUID.randomUUID());
            messages.add(Scenarios.outbound(soak, ids.get(i), "m" + i));
        }
        int failedCompletions = store.failedCompletions();
        double pauses = counted("once.consumer.pauses", soak);
        Scenarios.publishConfirmed(messages.subList(0, n / 2));

        await().atMost(Duration.ofSeconds(30)).until(() -> done(ids) >= 150);
        redis().stop();
        // Whatever the first half left in flight, the second half meets the stopped store: on a fast machine the
        // first half could all be done before the stop, and then nothing would ever find the store gone.
        Scenarios.publishConfirmed(messages.subList(n / 2, n));
        await().atMost(Duration.ofSeconds(20)).until(() -> !running(soak));
        // The advice keeps probing the store with back-off, and runs no handler without a claim.
        await().atMost(Duration.ofSeconds(20)).until(() -> counted("once.consumer.pauses", soak) - pauses >= 2);
        redis().start();

        await().atMost(Duration.ofSeconds(60)).until(() -> done(ids) == n && running(soak)
                && count(admin, soak) == 0 && inFlight(soak) == 0);
        long repeated = ids.stream().mapToInt(listeners::effects).sum() - n;
        // A handler whose completion could not be recorded had its effect; its redelivery ran it again.
        assertThat(repeated).isLessThanOrEqualTo(store.failedCompletions() - failedCompletions);
        assertThat(count(admin, soak + ".once.dlq")).isZero();
    }

}
