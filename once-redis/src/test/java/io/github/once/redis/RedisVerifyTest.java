package io.github.once.redis;

import io.github.once.StoreMisconfiguredException;
import io.github.once.StoreUnavailableException;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Redis store's start-up check on private redis-servers: it passes when Redis answers and the scripts load, names
 * the server when it is gone, and names the ACL rights to grant when the user may not load scripts.
 */
class RedisVerifyTest {

    private static RedisIdempotencyStore store(String uri) {
        return RedisIdempotencyStore.builder().uri(uri).clientResources(SharedRedis.RESOURCES)
                .timeout(Duration.ofSeconds(3)).build();
    }

    @Test
    void passesWhenRedisAnswersAndTheScriptsLoad() {
        try (RedisServer server = RedisServer.start(); RedisIdempotencyStore store = store(server.uri())) {
            assertThatCode(store::verify).doesNotThrowAnyException();
        }
    }

    @Test
    void aRedisThatWentAwayIsUnavailableAndNamed() {
        RedisServer server = RedisServer.start();
        try (RedisIdempotencyStore store = store(server.uri())) {
            server.close();
            assertThatThrownBy(store::verify)
                    .isInstanceOf(StoreUnavailableException.class)
                    .hasMessageContaining("redis://127.0.0.1:" + server.port())
                    .hasMessageContaining("check that Redis runs there");
        } finally {
            server.close();
        }
    }

    @Test
    void aUserThatMayNotLoadScriptsIsMisconfiguredAndToldWhatToGrant() {
        String acl = "no-scripts on >pw ~once:* resetchannels -@all +@connection +evalsha +eval +time";
        try (RedisServer server = RedisServer.start(("--user " + acl + " --user default off").split(" "));
             RedisIdempotencyStore store = store("redis://no-scripts:pw@127.0.0.1:" + server.port())) {
            assertThatThrownBy(store::verify)
                    .isInstanceOf(StoreMisconfiguredException.class)
                    .hasMessageContaining("NOPERM")
                    .hasMessageContaining("+script|load");
        }
    }
}
