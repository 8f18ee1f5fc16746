package io.github.once.bench.memory;

import io.github.once.IdempotencyKey;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.PayloadFingerprint;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.List;
import java.util.UUID;

/**
 * Fills the in-memory store with completed records as a consumer leaves them (a UUID message id, the default
 * SHA-256 payload fingerprint, an empty result, a day's retention) and prints the heap they take after a full
 * collection. Run it with a bounded heap to prove they fit:
 *
 * <pre>
 * java -Xmx256m -cp "once-bench/target/classes:$(cat once-bench/target/bench-classpath.txt)" \
 *     io.github.once.bench.memory.InMemoryFootprint 1000000
 * </pre>
 */
public final class InMemoryFootprint {

    private InMemoryFootprint() {
    }

    public static void main(String[] args) {
        int records = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long before = usedAfterGc(memory);
        InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().maxRecords(records).build();
        Duration lease = Duration.ofSeconds(30);
        Duration retention = Duration.ofDays(1);
        byte[] empty = new byte[0];
        for (int i = 0; i < records; i++) {
            String id = UUID.randomUUID().toString();
            String fingerprint = PayloadFingerprint.SHA_256.of(("{\"order\":" + i + "}").getBytes(StandardCharsets.UTF_8));
            ClaimResult claim = store.claim(List.of(new ClaimRequest(IdempotencyKey.of("orders", id), fingerprint,
                    lease, retention))).get(0);
            if (!(claim instanceof ClaimResult.Acquired acquired)
                    || !store.complete(List.of(new Completion(acquired.lease(), empty, retention))).get(0)) {
                throw new IllegalStateException("record " + i + " was not recorded: " + claim);
            }
        }
        long after = usedAfterGc(memory);
        if (store.size() != records) {
            throw new IllegalStateException("the store holds " + store.size() + " records, not " + records);
        }
        long bytes = after - before;
        System.out.printf(Locale.ROOT, "%,d completed records: %,d MiB of heap (%,d bytes per record), max heap %,d MiB%n",
                records, bytes >> 20, bytes / records, Runtime.getRuntime().maxMemory() >> 20);
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
