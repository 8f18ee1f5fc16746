package io.github.once.redis;

import io.github.once.IdempotencyKey;
import io.github.once.StoreUnavailableException;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An ACL user with a password and the least rights the store needs: its key prefix only, the script commands,
 * and the commands the scripts call. The default user is off, so nothing works without logging in.
 */
class RedisAclTest {

    /** The ACL rule documented in docs/redis.md. */
    static final String ACL = "once-app on >s3cret ~once-acl:* resetchannels -@all +@connection"
            + " +evalsha +eval +script|load +time +hmget +hset +hdel +pexpireat";

    private static RedisServer server;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start(("--user " + ACL + " --user default off").split(" "));
    }

    @AfterAll
    static void stopServer() {
        if (server != null) {
            server.close();
        }
    }

    private static void claimCompleteDuplicate(RedisIdempotencyStore store, String id) {
        IdempotencyKey key = IdempotencyKey.of("acl", id);
        ClaimRequest request = new ClaimRequest(key, "fp", Duration.ofMinutes(1), Duration.ofHours(1));
        Lease lease = ((ClaimResult.Acquired) StoreCalls.claim(store, request)).lease();
        assertThat(store.renew(lease, Duration.ofMinutes(1))).isPresent();
        assertThat(StoreCalls.complete(store, lease, "ok".getBytes(StandardCharsets.UTF_8), Duration.ofHours(1))).isTrue();
        assertThat(StoreCalls.claim(store, request)).isInstanceOf(ClaimResult.Duplicate.class);
        assertThat(StoreCalls.find(store, key).orElseThrow().result()).isEqualTo("ok".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void userAndPasswordInTheUri() {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder()
                .uri("redis://once-app:s3cret@127.0.0.1:" + server.port())
                .clientResources(SharedRedis.RESOURCES).keyPrefix("once-acl:").build()) {
            claimCompleteDuplicate(store, "by-uri");
        }
    }

    @Test
    void credentialsSetApartFromTheUri() {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(server.uri())
                .credentials("once-app", "s3cret".toCharArray())
                .clientResources(SharedRedis.RESOURCES).keyPrefix("once-acl:").build()) {
            claimCompleteDuplicate(store, "by-credentials");
        }
    }

    @Test
    void wrongPasswordFailsTheStartUpCheck() {
        assertThatThrownBy(() -> verified(RedisIdempotencyStore.builder().uri(server.uri())
                .credentials("once-app", "wrong".toCharArray())
                .clientResources(SharedRedis.RESOURCES).keyPrefix("once-acl:")))
                .isInstanceOf(StoreUnavailableException.class)
                .hasMessageContaining("127.0.0.1:" + server.port())
                .hasMessageNotContaining("wrong");
    }

    @Test
    void noCredentialsFailsTheStartUpCheck() {
        assertThatThrownBy(() -> verified(RedisIdempotencyStore.builder().uri(server.uri())
                .clientResources(SharedRedis.RESOURCES)))
                .isInstanceOf(StoreUnavailableException.class);
    }

    @Test
    void aPrefixOutsideTheUsersKeysIsRefusedNotAnswered() {
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder()
                .uri("redis://once-app:s3cret@127.0.0.1:" + server.port())
                .clientResources(SharedRedis.RESOURCES).keyPrefix("elsewhere:").build()) {
            assertThatThrownBy(() -> StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of("acl", "x"), "fp",
                    Duration.ofMinutes(1), Duration.ofHours(1))))
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("NOPERM");
        }
    }

    /** Builds (which succeeds whether or not Redis lets this user in) and runs the start-up check. */
    static void verified(RedisIdempotencyStore.Builder builder) {
        try (RedisIdempotencyStore store = builder.build()) {
            store.verify();
        }
    }
}
