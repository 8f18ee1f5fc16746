package io.github.once.tiered;

import io.github.once.IdempotencyKey;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.testkit.StoreCalls;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A tiered store whose Redis front is not running when it is built (nothing listens on its port): it builds, and
 * answers from the records store, as after losing its front while running.
 */
class TieredRedisFrontDownTest {

    @Test
    void buildsWithTheRedisFrontDownAndAnswersFromTheRecords() throws IOException {
        int port;
        try (ServerSocket spare = new ServerSocket(0)) {
            port = spare.getLocalPort();
        }
        try (RedisIdempotencyStore front = RedisIdempotencyStore.builder().uri("redis://127.0.0.1:" + port)
                     .timeout(Duration.ofMillis(300)).build();
             TieredIdempotencyStore store = TieredIdempotencyStore.builder(front,
                     InMemoryIdempotencyStore.builder().build()).build()) {
            ClaimRequest request = new ClaimRequest(IdempotencyKey.of("orders", "down-1"), "fp",
                    Duration.ofSeconds(30), Duration.ofHours(1));

            ClaimResult first = StoreCalls.claim(store, request);
            assertThat(first).isInstanceOf(ClaimResult.Acquired.class);
            assertThat(StoreCalls.complete(store, ((ClaimResult.Acquired) first).lease(),
                    "done".getBytes(StandardCharsets.UTF_8), Duration.ofHours(1))).isTrue();
            assertThat(StoreCalls.claim(store, request)).isInstanceOf(ClaimResult.Duplicate.class);
        }
    }
}
