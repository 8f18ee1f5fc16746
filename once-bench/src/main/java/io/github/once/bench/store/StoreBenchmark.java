package io.github.once.bench.store;

import io.github.once.bench.Services;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Claim + complete per second for Once's stores against Apache Camel's idempotent repositories and Spring
 * Integration's metadata-store selector, on the same local services. Compare rivals of the same store only.
 * {@code floor-redis} and {@code floor-postgresql} are no peers but the floor: the cheapest pair of commands per
 * new key on that store ({@link FloorRedis}, {@link FloorPostgres}), so a store's ratio to it can be read off.
 *
 * <p>{@code newKey}: every call a key never seen (the normal path). {@code duplicateKey}: every call a key already
 * done (a redelivery). {@code newKeyBatch} and {@code duplicateKeyBatch} do the same for batches of {@value #BATCH}
 * keys (scores are per key): Once with one {@code claimAll} and one {@code completeAll} per batch; the peers have
 * no batch call, so they make {@value #BATCH} single calls. Run it with {@code scripts/bench.sh}, or after {@code mvn -pl once-bench -am package}:
 * <pre>
 * java -cp "once-bench/target/classes:$(cat once-bench/target/bench-classpath.txt)" org.openjdk.jmh.Main \
 *     StoreBenchmark -p rival=once-redis,camel-redis,si-redis -t 4
 * java -cp ... org.openjdk.jmh.Main 'StoreBenchmark\.(newKey|duplicateKey)$' \
 *     -p rival=once-redis,floor-redis,once-jdbc,floor-postgresql -t 1
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 5)
@Fork(1)
public class StoreBenchmark {

    private static final int DONE_KEYS = 1024;
    static final int BATCH = 100;

    // The in-memory rivals (once-memory, camel-memory, si-memory) run on request with -p rival=...: Camel's is a
    // bounded LRU and Once's forgets quickly here, so they are no like-for-like default. once-tiered-memory-front
    // (the tiered store with an in-memory front) also runs on request: it shows what the front's round trip costs.
    @Param({"once-redis", "floor-redis", "camel-redis", "camel-redis-set", "si-redis",
            "once-jdbc", "floor-postgresql", "once-tiered", "camel-jdbc", "si-jdbc"})
    public String rival;

    private RepositoryUnderTest repository;
    private final AtomicLong next = new AtomicLong();
    private final AtomicLong nextDone = new AtomicLong();

    @Setup(Level.Trial)
    public void open() {
        repository = Rival.fromParam(rival).open(Services.local());
        for (int i = 0; i < DONE_KEYS; i++) {
            if (!repository.claimAndComplete("done-" + i)) {
                throw new IllegalStateException(rival + " answered duplicate for a new key");
            }
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        repository.close();
    }

    @Benchmark
    public boolean newKey() {
        String key = "k-" + next.incrementAndGet();
        if (!repository.claimAndComplete(key)) {
            throw new IllegalStateException(rival + " answered duplicate for new key " + key);
        }
        return true;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int newKeyBatch() {
        List<String> keys = new ArrayList<>(BATCH);
        long first = next.getAndAdd(BATCH) + 1;
        for (int i = 0; i < BATCH; i++) {
            keys.add("k-" + (first + i));
        }
        int fresh = repository.claimAndCompleteAll(keys);
        if (fresh != BATCH) {
            throw new IllegalStateException(rival + " answered " + (BATCH - fresh) + " duplicates for new keys from "
                    + keys.get(0));
        }
        return fresh;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int duplicateKeyBatch() {
        List<String> keys = new ArrayList<>(BATCH);
        long first = nextDone.getAndAdd(BATCH) + 1;
        for (int i = 0; i < BATCH; i++) {
            keys.add("done-" + ((first + i) % DONE_KEYS));
        }
        int fresh = repository.claimAndCompleteAll(keys);
        if (fresh != 0) {
            throw new IllegalStateException(rival + " processed " + fresh + " done keys again from " + keys.get(0));
        }
        return fresh;
    }

    @Benchmark
    public boolean duplicateKey() {
        String key = "done-" + (nextDone.incrementAndGet() % DONE_KEYS);
        if (repository.claimAndComplete(key)) {
            throw new IllegalStateException(rival + " processed done key " + key + " again");
        }
        return false;
    }
}
