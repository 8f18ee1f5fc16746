package io.github.once.redis;

import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.Lease;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Counts what reaches Redis, on a private server where nothing else talks: each operation is one EVALSHA and
 * nothing more (no check-then-set, no second key), and a batch of claims arrives in one socket read.
 */
class RedisRoundTripTest {

    private static final Duration LEASE = Duration.ofMinutes(1);
    private static final Duration RETENTION = Duration.ofHours(1);
    private static final int N = 50;

    private static RedisServer server;
    private static ServerStats stats;
    private RedisIdempotencyStore store;
    private String namespace;

    @BeforeAll
    static void startServer() {
        server = RedisServer.start();
        stats = new ServerStats(server);
    }

    @AfterAll
    static void stopServer() {
        if (stats != null) {
            stats.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void openStore() {
        store = RedisIdempotencyStore.builder().uri(server.uri()).clientResources(SharedRedis.RESOURCES).build();
        namespace = "rt" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    private ClaimRequest request(String id) {
        return new ClaimRequest(IdempotencyKey.of(namespace, id), "fp", LEASE, RETENTION);
    }

    /**
     * The commands clients sent since the last reset, less the counting connection's own. Redis also counts the
     * calls a script makes inside itself; those are left out here and checked by {@link #scriptReads()}.
     */
    private static Map<String, Long> storeCommands() {
        Map<String, Long> calls = stats.commandCalls();
        calls.keySet().removeAll(Set.of("config|resetstat", "info", "time", "hmget", "hset", "hdel", "pexpireat"));
        return calls;
    }

    /** HMGETs run inside scripts: every script reads its one key exactly once. */
    private static long scriptReads() {
        return stats.commandCalls().getOrDefault("hmget", 0L);
    }

    @Test
    void eachClaimIsOneEvalsha() {
        stats.reset();
        long baseline = stats.reads();
        stats.reset();

        for (int i = 0; i < N; i++) {
            assertThat(store.claim(request("single-" + i))).isInstanceOf(ClaimResult.Acquired.class);
        }

        long reads = stats.reads() - baseline;
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", (long) N));
        assertThat(scriptReads()).isEqualTo(N);
        assertThat(reads).as("socket reads for %d single claims", N).isEqualTo(N);
    }

    @Test
    void claimAllSendsTheBatchInOneWrite() {
        List<ClaimRequest> batch = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            batch.add(request("batch-" + i));
        }
        stats.reset();
        long baseline = stats.reads();
        stats.reset();

        List<ClaimResult> results = store.claimAll(batch);

        long reads = stats.reads() - baseline;
        assertThat(results).hasSize(N).allMatch(r -> r instanceof ClaimResult.Acquired);
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", (long) N));
        assertThat(scriptReads()).isEqualTo(N);
        // One write of about 8 kB, which the server takes in one read (16 kB at a time); a second read is allowed
        // in case the kernel hands it over in two parts. Single claims need one read each (see above).
        assertThat(reads).as("socket reads for a batch of %d claims", N).isLessThanOrEqualTo(2);
    }

    @Test
    void completeAllSendsTheBatchInOneWrite() {
        List<ClaimRequest> batch = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            batch.add(request("complete-batch-" + i));
        }
        List<Completion> completions = new ArrayList<>();
        for (ClaimResult claimed : store.claimAll(batch)) {
            completions.add(new Completion(((ClaimResult.Acquired) claimed).lease(),
                    "done".getBytes(StandardCharsets.UTF_8), RETENTION));
        }
        stats.reset();
        long baseline = stats.reads();
        stats.reset();

        List<Boolean> recorded = store.completeAll(completions);

        long reads = stats.reads() - baseline;
        assertThat(recorded).hasSize(N).containsOnly(true);
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", (long) N));
        assertThat(reads).as("socket reads for a batch of %d completions", N).isLessThanOrEqualTo(2);
        assertThat(store.find(IdempotencyKey.of(namespace, "complete-batch-7")).orElseThrow().result())
                .isEqualTo("done".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void completeRenewReleaseAndFindAreOneEvalshaEach() {
        Lease lease = ((ClaimResult.Acquired) store.claim(request("ops"))).lease();
        Lease other = ((ClaimResult.Acquired) store.claim(request("ops-2"))).lease();
        stats.reset();

        lease = store.renew(lease, LEASE).orElseThrow();
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 1L));
        assertThat(store.complete(lease, "done".getBytes(StandardCharsets.UTF_8), RETENTION)).isTrue();
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 2L));
        assertThat(store.release(other)).isTrue();
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 3L));
        assertThat(store.find(lease.key())).isPresent();
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 4L));
        assertThat(scriptReads()).isEqualTo(4);
    }

    @Test
    void scriptCacheLossCostsOneEvalThenEvalshaAgain() {
        stats.redis().scriptFlush();
        stats.reset();

        assertThat(store.claim(request("flushed-1"))).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 1L, "eval", 1L));
        assertThat(store.claim(request("flushed-2"))).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 2L, "eval", 1L));
    }

    @Test
    void batchAfterScriptCacheLossStillAnswersInOrder() {
        stats.redis().scriptFlush();

        List<ClaimResult> results = store.claimAll(List.of(request("again"), request("again"), request("other")));

        assertThat(results.get(0)).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(results.get(1)).isInstanceOf(ClaimResult.Busy.class);
        assertThat(results.get(2)).isInstanceOf(ClaimResult.Acquired.class);
    }
}
