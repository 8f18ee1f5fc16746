package io.github.once.jdbc;

import com.zaxxer.hikari.HikariDataSource;
import io.github.once.IdempotencyKey;
import io.github.once.spi.ClaimRequest;
import io.github.once.spi.ClaimResult;
import io.github.once.spi.Completion;
import io.github.once.spi.Lease;
import io.github.once.testkit.StoreCalls;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;

/**
 * A quick measurement, not a test: completing batches of leases one call at a time (what {@code completeAll} did
 * before, the SPI's default loop) against the store's one-statement {@code completeAll}, on each database. Run
 * after {@code mvn -pl once-jdbc test-compile}:
 * <pre>
 * java -cp "once-jdbc/target/test-classes:once-jdbc/target/classes:$(cat /tmp/once-jdbc-cp.txt)" \
 *     io.github.once.jdbc.CompleteAllHarness [batch size] [rounds]
 * </pre>
 */
public final class CompleteAllHarness {

    public static void main(String[] args) throws Exception {
        int batch = args.length > 0 ? Integer.parseInt(args[0]) : 100;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        for (TestDb db : List.of(TestDb.POSTGRESQL, TestDb.MARIADB)) {
            try (HikariDataSource pool = db.pool("TRANSACTION_READ_COMMITTED", true)) {
                JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(pool)
                        .tableName(TestDb.randomTable("once_harness")).createTableIfMissing(true).build();
                try {
                    measure(db, store, batch, 3); // warm-up
                    double[] micros = measure(db, store, batch, rounds);
                    System.out.printf(Locale.ROOT, "%-10s batch %d, %d rounds: one call each %8.1f µs/completion,"
                            + " completeAll %8.1f µs/completion (%.1fx)%n", db, batch, rounds, micros[0], micros[1],
                            micros[0] / micros[1]);
                } finally {
                    TestDb.drop(pool, store.tableName());
                }
            }
        }
    }

    private static double[] measure(TestDb db, JdbcIdempotencyStore store, int batch, int rounds) {
        long single = 0;
        long batched = 0;
        for (int r = 0; r < rounds; r++) {
            List<Completion> a = completions(store, batch);
            long t0 = System.nanoTime();
            for (Completion c : a) {
                check(StoreCalls.complete(store, c.lease(), c.result(), c.retention()));
            }
            long t1 = System.nanoTime();
            List<Completion> b = completions(store, batch);
            long t2 = System.nanoTime();
            for (boolean done : store.complete(b)) {
                check(done);
            }
            long t3 = System.nanoTime();
            single += t1 - t0;
            batched += t3 - t2;
        }
        double n = (double) rounds * batch * 1_000;
        return new double[]{single / n, batched / n};
    }

    private static List<Completion> completions(JdbcIdempotencyStore store, int batch) {
        String ns = "h" + UUID.randomUUID().toString().substring(0, 8);
        List<ClaimRequest> requests = new ArrayList<>();
        for (int i = 0; i < batch; i++) {
            requests.add(new ClaimRequest(IdempotencyKey.of(ns, "m-" + i), null, Duration.ofSeconds(60), Duration.ofMinutes(10)));
        }
        List<Completion> completions = new ArrayList<>();
        for (ClaimResult result : store.claim(requests)) {
            Lease lease = ((ClaimResult.Acquired) result).lease();
            completions.add(new Completion(lease, new byte[16], Duration.ofMinutes(10)));
        }
        return completions;
    }

    private static void check(boolean done) {
        if (!done) {
            throw new IllegalStateException("a completion was refused");
        }
    }
}
