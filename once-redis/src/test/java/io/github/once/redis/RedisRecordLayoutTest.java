package io.github.once.redis;

import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * What a record looks like in Redis (shared server, a random prefix): one hash under
 * {@code <prefix>{<namespace>:<id>}}, deadlines from the server's clock, and Redis TTLs that keep an in-progress
 * record (and its fencing counter) far beyond its lease.
 */
class RedisRecordLayoutTest {

    private final String prefix = SharedRedis.randomPrefix();
    private RedisIdempotencyStore store;
    private RedisClient client;
    private StatefulRedisConnection<String, String> connection;
    private RedisCommands<String, String> redis;

    @BeforeEach
    void open() {
        store = RedisIdempotencyStore.builder().uri(SharedRedis.URI).clientResources(SharedRedis.RESOURCES)
                .keyPrefix(prefix).build();
        client = RedisClient.create(SharedRedis.RESOURCES, SharedRedis.URI);
        connection = client.connect();
        redis = connection.sync();
    }

    @AfterEach
    void close() {
        store.close();
        SharedRedis.deleteKeys(prefix);
        connection.close();
        client.shutdown();
    }

    private Instant redisTime() {
        List<String> time = redis.time();
        return Instant.ofEpochSecond(Long.parseLong(time.get(0)), Long.parseLong(time.get(1)) * 1_000);
    }

    @Test
    void oneHashPerRecordUnderThePrefixedKey() {
        IdempotencyKey key = IdempotencyKey.of("orders", "42");
        Lease lease = ((ClaimResult.Acquired) StoreCalls.claim(store,
                new ClaimRequest(key, "fp", Duration.ofSeconds(30), Duration.ofHours(1)))).lease();
        StoreCalls.complete(store, lease, "receipt".getBytes(StandardCharsets.UTF_8), Duration.ofHours(24));

        assertThat(store.redisKey(key)).isEqualTo(prefix + "{orders:42}");
        assertThat(redis.keys(prefix + "*")).containsExactly(prefix + "{orders:42}");
        assertThat(redis.type(prefix + "{orders:42}")).isEqualTo("hash");
        Map<String, String> fields = redis.hgetall(prefix + "{orders:42}");
        assertThat(fields).containsEntry("s", "C").containsEntry("t", Long.toString(lease.token()))
                .containsEntry("f", "fp").containsEntry("r", "receipt").containsKeys("l", "e");
    }

    @Test
    void leaseDeadlineAndTokenComeFromTheRedisClock() {
        Instant before = redisTime();
        Lease lease = ((ClaimResult.Acquired) StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of("clock", "1"), "fp",
                Duration.ofSeconds(30), Duration.ofHours(1)))).lease();
        Instant after = redisTime();

        assertThat(lease.deadline()).isBetween(before.plusSeconds(30).minusMillis(1), after.plusSeconds(30));
        long beforeMicros = before.getEpochSecond() * 1_000_000 + before.getNano() / 1_000;
        assertThat(lease.token()).isGreaterThanOrEqualTo(beforeMicros);
    }

    @Test
    void inProgressRecordOutlivesItsLeaseAndCompletedOneExpiresAfterItsRetention() {
        IdempotencyKey key = IdempotencyKey.of("ttl", "1");
        Lease lease = ((ClaimResult.Acquired) StoreCalls.claim(store,
                new ClaimRequest(key, "fp", Duration.ofSeconds(5), Duration.ofHours(2)))).lease();
        long inProgressTtl = redis.pttl(store.redisKey(key));
        assertThat(inProgressTtl).isCloseTo(Duration.ofHours(2).toMillis(), within(10_000L));

        StoreCalls.complete(store, lease, null, Duration.ofMinutes(10));
        long completedTtl = redis.pttl(store.redisKey(key));
        assertThat(completedTtl).isCloseTo(Duration.ofMinutes(10).toMillis(), within(10_000L));
    }

    @Test
    void renewingPastTheRetentionExtendsTheRecord() {
        IdempotencyKey key = IdempotencyKey.of("ttl", "2");
        Lease lease = ((ClaimResult.Acquired) StoreCalls.claim(store,
                new ClaimRequest(key, "fp", Duration.ofSeconds(5), Duration.ofMinutes(1)))).lease();

        store.renew(lease, Duration.ofMinutes(30)).orElseThrow();

        assertThat(redis.pttl(store.redisKey(key))).isCloseTo(Duration.ofMinutes(30).toMillis(), within(10_000L));
    }

    @Test
    void idsWithBracesKeepTheirOwnKeys() {
        for (String id : new String[] {"{a}x", "{a}y", "a}b", "}", "{", "{}"}) {
            assertThat(StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of("braces", id), "fp", Duration.ofMinutes(1),
                    Duration.ofMinutes(1)))).as("claim of %s", id).isInstanceOf(ClaimResult.Acquired.class);
        }
        assertThat(redis.keys(prefix + "*")).hasSize(6);
    }
}
