package io.github.once.redis;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.RecordState;
import io.github.once.redis.internal.ScriptCalls;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * nothing more (no check-then-set, no second key), and a batch of claims or completions is one EVALSHA (per
 * {@value RedisIdempotencyStore#BATCH_CHUNK} keys) arriving in one socket read.
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
            assertThat(StoreCalls.claim(store, request("single-" + i))).isInstanceOf(ClaimResult.Acquired.class);
        }

        long reads = stats.reads() - baseline;
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", (long) N));
        assertThat(scriptReads()).isEqualTo(N);
        assertThat(reads).as("socket reads for %d single claims", N).isEqualTo(N);
    }

    /** Every command Redis ran since the last reset, those scripts ran inside included, less the counting connection's. */
    private static Map<String, Long> allCommands() {
        Map<String, Long> calls = stats.commandCalls();
        calls.keySet().removeAll(Set.of("config|resetstat", "info"));
        return calls;
    }

    /**
     * A new key needs its clock, one read, one write and its expiry, and nothing more: no HDEL, no second write,
     * with or without a fingerprint or a result.
     */
    @Test
    void aNewKeyRunsOnlyTheCommandsItNeeds() {
        Map<String, Long> lean = Map.of("evalsha", 1L, "time", 1L, "hmget", 1L, "hset", 1L, "pexpireat", 1L);
        int n = 0;
        for (String fingerprint : Arrays.asList("fp", null)) {
            for (byte[] result : Arrays.asList("done".getBytes(StandardCharsets.UTF_8), null)) {
                IdempotencyKey key = IdempotencyKey.of(namespace, "lean-" + n++);
                stats.reset();

                ClaimResult claim = StoreCalls.claim(store, new ClaimRequest(key, fingerprint, LEASE, RETENTION));

                assertThat(allCommands()).as("commands to claim %s", key).isEqualTo(lean);
                assertThat(((ClaimResult.Acquired) claim).takeovers()).isZero();
                stats.reset();

                assertThat(StoreCalls.complete(store, ((ClaimResult.Acquired) claim).lease(), result, RETENTION)).isTrue();

                assertThat(allCommands()).as("commands to complete %s", key).isEqualTo(lean);
                IdempotencyRecord record = StoreCalls.find(store, key).orElseThrow();
                assertThat(record.fingerprint()).isEqualTo(fingerprint);
                assertThat(record.result()).isEqualTo(result);
            }
        }
    }

    @Test
    void claimAllIsOneEvalshaForTheBatch() {
        List<ClaimRequest> batch = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            batch.add(request("batch-" + i));
        }
        stats.reset();
        long baseline = stats.reads();
        stats.reset();

        List<ClaimResult> results = store.claim(batch);

        long reads = stats.reads() - baseline;
        assertThat(results).hasSize(N).allMatch(r -> r instanceof ClaimResult.Acquired);
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 1L));
        assertThat(scriptReads()).isEqualTo(N);
        assertThat(stats.commandCalls().get("time")).as("TIME calls for the batch").isEqualTo(1L);
        assertThat(reads).as("socket reads for a batch of %d claims", N).isEqualTo(1);
    }

    /** A batch of look-ups (the tiered store's front asks one per claim batch) is one script call, one read each. */
    @Test
    void findAllIsOneEvalshaForTheBatch() {
        List<IdempotencyKey> keys = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            ClaimRequest request = request("find-batch-" + i);
            keys.add(request.key());
            if (i % 2 == 0) {
                ClaimResult.Acquired claimed = (ClaimResult.Acquired) StoreCalls.claim(store, request);
                assertThat(StoreCalls.complete(store, claimed.lease(), ("r" + i).getBytes(StandardCharsets.UTF_8), RETENTION))
                        .isTrue();
            }
        }
        stats.reset();
        long baseline = stats.reads();
        stats.reset();

        List<Optional<IdempotencyRecord>> found = store.find(keys);

        long reads = stats.reads() - baseline;
        assertThat(storeCommands()).as("one script, which first asks whether any key exists")
                .isEqualTo(Map.of("evalsha", 1L, "exists", 1L));
        assertThat(scriptReads()).isEqualTo(N);
        assertThat(reads).as("socket reads for a batch of %d look-ups", N).isEqualTo(1);
        assertThat(found).hasSize(N);
        for (int i = 0; i < N; i++) {
            if (i % 2 == 0) {
                IdempotencyRecord record = found.get(i).orElseThrow();
                assertThat(record.key()).isEqualTo(keys.get(i));
                assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
                assertThat(record.result()).isEqualTo(("r" + i).getBytes(StandardCharsets.UTF_8));
            } else {
                assertThat(found.get(i)).as("never claimed: %s", keys.get(i)).isEmpty();
            }
        }
    }

    /** New keys, the usual read ahead of claims: one EXISTS answers the whole batch, no read per key. */
    @Test
    void findAllOfKeysRedisDoesNotHoldIsOneExists() {
        List<IdempotencyKey> keys = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            keys.add(request("find-absent-" + i).key());
        }
        stats.reset();

        List<Optional<IdempotencyRecord>> found = store.find(keys);

        assertThat(allCommands()).isEqualTo(Map.of("evalsha", 1L, "time", 1L, "exists", 1L));
        assertThat(found).hasSize(N).allSatisfy(record -> assertThat(record).isEmpty());
    }

    @Test
    void completeAllIsOneEvalshaForTheBatch() {
        List<ClaimRequest> batch = new ArrayList<>();
        for (int i = 0; i < N; i++) {
            batch.add(request("complete-batch-" + i));
        }
        List<Completion> completions = new ArrayList<>();
        for (ClaimResult claimed : store.claim(batch)) {
            completions.add(new Completion(((ClaimResult.Acquired) claimed).lease(),
                    "done".getBytes(StandardCharsets.UTF_8), RETENTION));
        }
        stats.reset();
        long baseline = stats.reads();
        stats.reset();

        List<Boolean> recorded = store.complete(completions);

        long reads = stats.reads() - baseline;
        assertThat(recorded).hasSize(N).containsOnly(true);
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 1L));
        assertThat(scriptReads()).isEqualTo(N);
        assertThat(reads).as("socket reads for a batch of %d completions", N).isEqualTo(1);
        assertThat(StoreCalls.find(store, IdempotencyKey.of(namespace, "complete-batch-7")).orElseThrow().result())
                .isEqualTo("done".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aBorrowedConnectionAlsoSendsOneEvalshaPerBatch() {
        RedisClient client = RedisClient.create(SharedRedis.RESOURCES, server.uri());
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE);
             RedisIdempotencyStore borrowing = RedisIdempotencyStore.builder().connection(connection).build()) {
            List<ClaimRequest> batch = new ArrayList<>();
            for (int i = 0; i < N; i++) {
                batch.add(request("borrowed-" + i));
            }
            stats.reset();

            List<Completion> completions = new ArrayList<>();
            for (ClaimResult claimed : borrowing.claim(batch)) {
                completions.add(new Completion(((ClaimResult.Acquired) claimed).lease(), null, RETENTION));
            }
            assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 1L));
            assertThat(borrowing.complete(completions)).hasSize(N).containsOnly(true);
            assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 2L));
        } finally {
            client.shutdown();
        }
    }

    /**
     * A batch of more than two chunks, with every record state and keys repeated within a chunk and across chunks,
     * answers exactly as single calls in order do on a mirror of the same records, claims and completions alike.
     */
    @Test
    void batchesLargerThanAChunkAnswerAsSingleCallsInOrder() {
        String batchSpace = namespace + "-batch";
        String singleSpace = namespace + "-single";
        List<ClaimRequest> batchRequests = mixedBatch(batchSpace);
        List<ClaimRequest> singleRequests = mixedBatch(singleSpace);
        assertThat(batchRequests).hasSize(450);
        stats.reset();

        List<ClaimResult> batched = store.claim(batchRequests);

        int chunks = (450 + ScriptCalls.BATCH_CHUNK - 1) / ScriptCalls.BATCH_CHUNK;
        assertThat(chunks).isGreaterThan(2);
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", (long) chunks));
        List<ClaimResult> singles = new ArrayList<>();
        for (ClaimRequest request : singleRequests) {
            singles.add(StoreCalls.claim(store, request));
        }
        assertThat(batched.stream().map(StoreCalls::describe).toList())
                .isEqualTo(singles.stream().map(StoreCalls::describe).toList());
        assertThat(batched.stream().map(r -> r.getClass().getSimpleName()).distinct())
                .containsExactlyInAnyOrder("Acquired", "Busy", "Duplicate", "Conflict");

        List<Completion> batchCompletions = completionsFor(batched);
        List<Completion> singleCompletions = completionsFor(singles);
        assertThat(batchCompletions).hasSizeGreaterThan(ScriptCalls.BATCH_CHUNK);
        stats.reset();

        List<Boolean> batchDone = store.complete(batchCompletions);

        assertThat(storeCommands()).isEqualTo(Map.of("evalsha",
                (long) (batchCompletions.size() + ScriptCalls.BATCH_CHUNK - 1)
                        / ScriptCalls.BATCH_CHUNK));
        List<Boolean> singleDone = new ArrayList<>();
        for (Completion completion : singleCompletions) {
            singleDone.add(StoreCalls.complete(store, completion.lease(), completion.result(), completion.retention()));
        }
        assertThat(batchDone).isEqualTo(singleDone).contains(true, false);
        for (int i = 0; i < 300; i++) {
            assertThat(StoreCalls.find(store, IdempotencyKey.of(batchSpace, "k-" + i)).map(StoreCalls::describe))
                    .as("record k-%d", i)
                    .isEqualTo(StoreCalls.find(store, IdempotencyKey.of(singleSpace, "k-" + i)).map(StoreCalls::describe));
        }
    }

    /**
     * 300 keys in five states (live lease, completed, completed with another fingerprint, released, absent), then
     * 150 repeats of earlier keys, every third with another fingerprint.
     */
    private List<ClaimRequest> mixedBatch(String space) {
        List<ClaimRequest> requests = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            IdempotencyKey key = IdempotencyKey.of(space, "k-" + i);
            switch (i % 5) {
                case 0 -> StoreCalls.claim(store, new ClaimRequest(key, "fp", LEASE, RETENTION));
                case 1 -> StoreCalls.complete(store, acquire(key, "fp"), ("r-" + i).getBytes(StandardCharsets.UTF_8), RETENTION);
                case 2 -> StoreCalls.complete(store, acquire(key, "fp-old"), null, RETENTION);
                case 3 -> store.release(acquire(key, "fp"));
                default -> {
                }
            }
            requests.add(new ClaimRequest(key, "fp", LEASE, RETENTION));
        }
        for (int j = 0; j < 150; j++) {
            IdempotencyKey key = IdempotencyKey.of(space, "k-" + (j * 7) % 300);
            requests.add(new ClaimRequest(key, j % 3 == 0 ? "fp-other" : "fp", LEASE, RETENTION));
        }
        return requests;
    }

    private Lease acquire(IdempotencyKey key, String fingerprint) {
        return ((ClaimResult.Acquired) StoreCalls.claim(store, new ClaimRequest(key, fingerprint, LEASE, RETENTION))).lease();
    }

    /** Every lease won, a forged one (next token) for every third, then every lease again. */
    private static List<Completion> completionsFor(List<ClaimResult> results) {
        List<Lease> leases = results.stream().filter(r -> r instanceof ClaimResult.Acquired)
                .map(r -> ((ClaimResult.Acquired) r).lease()).toList();
        List<Completion> completions = new ArrayList<>();
        for (int i = 0; i < leases.size(); i++) {
            Lease lease = leases.get(i);
            if (i % 3 == 0) {
                completions.add(new Completion(new Lease(lease.key(), lease.token() + 1, lease.deadline()),
                        "forged".getBytes(StandardCharsets.UTF_8), RETENTION));
            }
            completions.add(new Completion(lease, i % 2 == 0 ? null : ("done-" + i).getBytes(StandardCharsets.UTF_8),
                    RETENTION));
        }
        for (Lease lease : leases) {
            completions.add(new Completion(lease, "again".getBytes(StandardCharsets.UTF_8), RETENTION));
        }
        return completions;
    }

    @Test
    void completeRenewReleaseAndFindAreOneEvalshaEach() {
        Lease lease = ((ClaimResult.Acquired) StoreCalls.claim(store, request("ops"))).lease();
        Lease other = ((ClaimResult.Acquired) StoreCalls.claim(store, request("ops-2"))).lease();
        stats.reset();

        lease = store.renew(lease, LEASE).orElseThrow();
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 1L));
        assertThat(StoreCalls.complete(store, lease, "done".getBytes(StandardCharsets.UTF_8), RETENTION)).isTrue();
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 2L));
        assertThat(store.release(other)).isTrue();
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 3L));
        assertThat(StoreCalls.find(store, lease.key())).isPresent();
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 4L));
        assertThat(scriptReads()).isEqualTo(4);
    }

    @Test
    void scriptCacheLossCostsOneEvalThenEvalshaAgain() {
        stats.redis().scriptFlush();
        stats.reset();

        assertThat(StoreCalls.claim(store, request("flushed-1"))).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 1L, "eval", 1L));
        assertThat(StoreCalls.claim(store, request("flushed-2"))).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 2L, "eval", 1L));
    }

    @Test
    void batchAfterScriptCacheLossStillAnswersInOrder() {
        stats.redis().scriptFlush();
        stats.reset();

        List<ClaimResult> results = store.claim(List.of(request("again"), request("again"), request("other")));

        assertThat(storeCommands()).isEqualTo(Map.of("evalsha", 1L, "eval", 1L));
        assertThat(results.get(0)).isInstanceOf(ClaimResult.Acquired.class);
        assertThat(results.get(1)).isInstanceOf(ClaimResult.Busy.class);
        assertThat(results.get(2)).isInstanceOf(ClaimResult.Acquired.class);
    }
}
