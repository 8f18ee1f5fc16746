package io.github.once.cli.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.github.once.Idempotency;
import io.github.once.IdempotencyKey;
import io.github.once.ResultCodec;
import io.github.once.cli.Cli;
import io.github.once.cli.ExitCodes;
import io.github.once.cli.MiniJson;
import io.github.once.cli.Services;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.testkit.StoreCalls;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** inspect, stats and purge against the local Redis, on records written by the Redis store itself. */
class OpsRedisTest {

    private final String prefix = "once-cli-test-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private final String ns = "orders";
    private RedisIdempotencyStore store;

    @BeforeEach
    void seed() {
        store = RedisIdempotencyStore.builder().uri(Services.REDIS).keyPrefix(prefix).build();
        try (Idempotency once = Idempotency.builder(store).build()) {
            once.execute(IdempotencyKey.of(ns, "done-1"), "body".getBytes(), ResultCodec.utf8(), ctx -> "charged 42");
        }
        ClaimResult working = StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of(ns, "working-1"), null,
                Duration.ofMinutes(5), Duration.ofMinutes(10)));
        assertThat(working).isInstanceOf(ClaimResult.Acquired.class);
        ClaimResult released = StoreCalls.claim(store, new ClaimRequest(IdempotencyKey.of(ns, "released-1"), null,
                Duration.ofMinutes(5), Duration.ofMinutes(10)));
        assertThat(store.release(((ClaimResult.Acquired) released).lease())).isTrue();
    }

    @AfterEach
    void cleanUp() {
        io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(Services.REDIS);
        try (var c = client.connect()) {
            var keys = c.sync().keys(prefix + "*");
            if (!keys.isEmpty()) {
                c.sync().del(keys.toArray(new String[0]));
            }
        } finally {
            client.shutdown();
            store.close();
        }
    }

    private Cli once(String... args) {
        String[] all = new String[args.length + 4];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--redis-uri";
        all[args.length + 1] = Services.REDIS;
        all[args.length + 2] = "--key-prefix";
        all[args.length + 3] = prefix;
        return Cli.run(all);
    }

    @Test
    void inspectShowsACompletedRecordWithItsResult() {
        Cli run = once("inspect", ns, "done-1");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("key          orders/done-1", "stored as    " + prefix + "{orders:done-1}",
                "state        COMPLETED", "result       10 bytes, text: charged 42");
    }

    @Test
    void inspectJsonOfAReleasedClaim() {
        Cli run = once("inspect", ns, "released-1", "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        Map<String, Object> json = MiniJson.object(run.out());
        assertThat(json).containsEntry("state", "IN_PROGRESS").containsEntry("standing", "RELEASED")
                .containsEntry("id", "released-1").containsEntry("resultBase64", null)
                .containsEntry("storageKey", prefix + "{orders:released-1}");
        assertThat((Long) json.get("token")).isPositive();

        Cli text = once("inspect", ns, "released-1");
        assertThat(text.out()).contains("state        RELEASED  (its handler failed and gave the claim back: "
                + "waiting for its retry)").doesNotContain("lapsed");
    }

    @Test
    void aClaimWhoseOwnerDiedIsLapsedNotReleased() {
        IdempotencyKey died = IdempotencyKey.of(ns, "died-1");
        assertThat(StoreCalls.claim(store, new ClaimRequest(died, null, Duration.ofMillis(300), Duration.ofMinutes(10))))
                .isInstanceOf(ClaimResult.Acquired.class);
        await().atMost(Duration.ofSeconds(10)).until(() ->
                "LAPSED".equals(MiniJson.object(once("inspect", ns, "died-1", "--json").out()).get("standing")));

        assertThat(once("inspect", ns, "died-1").out()).contains("state        LAPSED  (lease ran out without a "
                + "release: its owner died or stalled)");
        Map<String, Object> stats = MiniJson.object(once("stats", "--json", "--oldest", "5").out());
        assertThat(stats).containsEntry("inProgress", 1L).containsEntry("released", 1L).containsEntry("lapsed", 1L);
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> oldest = (List<Map<String, Object>>) stats.get("oldest");
        assertThat(oldest).extracting(o -> o.get("key") + " " + o.get("standing"))
                .containsExactly("orders/working-1 IN_PROGRESS", "orders/died-1 LAPSED");
    }

    @Test
    void inspectOfAnUnknownKeyExitsOne() {
        Cli run = once("inspect", ns, "never-seen");
        assertThat(run.exitCode()).isEqualTo(1);
        assertThat(run.out()).contains("no record for orders/never-seen");
    }

    @Test
    void inspectWithAnInvalidNamespaceIsAUsageError() {
        Cli run = once("inspect", "bad namespace", "x");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("namespace must be 1 to 64 characters");
    }

    @Test
    void statsCountsByStateAndNamesTheOldestClaim() {
        Cli run = once("stats", "--json");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        Map<String, Object> json = MiniJson.object(run.out());
        assertThat(json).containsEntry("completed", 1L).containsEntry("inProgress", 1L).containsEntry("released", 1L)
                .containsEntry("lapsed", 0L).containsEntry("expiredBacklog", 0L);
        @SuppressWarnings("unchecked")
        Map<String, Object> oldest = (Map<String, Object>) json.get("oldestInProgress");
        // The released key waits for its retry: it is not a stuck claim.
        assertThat(oldest).containsEntry("key", "orders/working-1").containsEntry("standing", "IN_PROGRESS");

        Cli text = once("stats", "--namespace", ns);
        assertThat(text.out()).contains("completed        1", "in progress      1", "released         1",
                "lapsed           0", "oldest in prog.  orders/working-1, claimed ");
        assertThat(once("stats", "--namespace", "other").out()).contains("completed        0");
    }

    @Test
    void purgeSaysRedisExpiresRecordsItself() {
        Cli dry = once("purge", "--dry-run");
        assertThat(dry.exitCode()).isZero();
        assertThat(dry.out()).contains("would delete 0 expired records", "Redis deletes each record itself");
        Cli real = once("purge", "--json");
        assertThat(MiniJson.object(real.out())).containsEntry("dryRun", false).containsEntry("count", 0L);
        assertThat(once("inspect", ns, "done-1").exitCode()).isZero();
    }

    @Test
    void unreachableRedis() {
        int port = Services.deadPort();
        Cli run = Cli.run("stats", "--redis-uri", "redis://127.0.0.1:" + port);
        assertThat(run.exitCode()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).startsWith("once: cannot reach Redis at 127.0.0.1:" + port).doesNotContain("\tat ");
    }

    @Test
    void badRedisArguments() {
        assertThat(Cli.run("stats", "--redis-uri", "http://127.0.0.1:6379").err())
                .contains("--redis-uri must start with redis:// or rediss://");
        Cli braces = Cli.run("stats", "--redis-uri", Services.REDIS, "--key-prefix", "a{b}");
        assertThat(braces.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(braces.err()).contains("--key-prefix must be at most 64 printable ASCII characters");
        Cli both = Cli.run("stats", "--redis-uri", Services.REDIS, "--jdbc-url", Services.POSTGRES);
        assertThat(both.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(both.err()).contains("mutually exclusive");
        Cli neither = Cli.run("purge");
        assertThat(neither.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(neither.err()).contains("Missing required argument");
    }
}
