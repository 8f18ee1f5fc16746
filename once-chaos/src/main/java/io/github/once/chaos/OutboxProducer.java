package io.github.once.chaos;

import io.github.once.outbox.Outbox;

import com.zaxxer.hikari.HikariDataSource;

import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The outbox-tx mode's producer process: for each id {@code m0 .. m<n-1>}, one transaction that inserts a business
 * row and writes the message with {@link Outbox#write}, committed, or (a share of them) rolled back on purpose.
 * It never publishes: the relays do. Committed ids go to {@code --out}, rolled-back ones to {@code --rolled-back}.
 * Four threads share the ids (thread t takes every fourth from t), each on its own connection: one thread's
 * durable commits, three round trips through the stall proxy each, fell behind the pace of a full run.
 *
 * <pre>
 * java -cp CLASSPATH io.github.once.chaos.OutboxProducer --jdbc JDBC_URL --business-table T --outbox-table O
 *      --queue Q --messages 3000 --rate 150 --rollback-share 0.1 --seed 42 --out committed.txt
 *      --rolled-back rolled-back.txt
 * </pre>
 * A transaction that fails (the database restarted, a backend terminated, the connection stalled) is tried again
 * with the same id; when the failed one had in fact committed, the retry meets the business row's primary key and
 * the id counts as committed. The business table, read at the end, is the truth; the files are what the producer saw.
 */
public final class OutboxProducer {

    private static final int THREADS = 4;

    private OutboxProducer() {
    }

    public static void main(String[] argv) throws Exception {
        ParentWatch.exitWithParent();
        Args args = Args.parse(argv);
        String business = args.get("business-table");
        String queue = args.get("queue");
        int messages = args.getInt("messages", 1000);
        double rate = Double.parseDouble(args.get("rate", "200"));
        double rollbackShare = Double.parseDouble(args.get("rollback-share", "0.1"));
        long seed = args.getLong("seed", 1);
        Outbox outbox = OnceWiring.outbox(args.get("outbox-table"));
        long start = System.nanoTime();
        AtomicInteger committed = new AtomicInteger();
        AtomicInteger rolledBack = new AtomicInteger();
        try (HikariDataSource db = Pools.postgres(args.get("jdbc"), "producer", THREADS);
             BufferedWriter out = append(args.get("out"));
             BufferedWriter rolledBackOut = append(args.get("rolled-back"))) {
            ExecutorService threads = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    int first = t;
                    done.add(threads.submit(() -> {
                        for (int i = first; i < messages; i += THREADS) {
                            String id = "m" + i;
                            // Drawn per id, so the same seed rolls back the same ids whatever the threads' timing.
                            boolean rollBack = new SplittableRandom(seed * 1_000_003L + i).nextDouble() < rollbackShare;
                            writeUntilSettled(db, outbox, business, queue, id, rollBack);
                            BufferedWriter log = rollBack ? rolledBackOut : out;
                            synchronized (log) {
                                log.write(id);
                                log.newLine();
                                log.flush();
                            }
                            (rollBack ? rolledBack : committed).incrementAndGet();
                            long ahead = start + (long) ((i + 1) / rate * 1e9) - System.nanoTime();
                            if (ahead > 0) {
                                Pause.millis(ahead / 1_000_000L);
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(); // a thread that gave up fails the producer, and so the run
                }
            } finally {
                // A thread that gave up must not leave the others running: the process would never exit.
                threads.shutdownNow();
            }
        }
        System.out.println("committed " + committed + " transactions, rolled back " + rolledBack);
    }

    private static void writeUntilSettled(HikariDataSource db, Outbox outbox, String business, String queue, String id,
                                          boolean rollBack) throws SQLException {
        long deadline = System.nanoTime() + 300_000_000_000L;
        while (true) {
            try (Connection c = db.getConnection()) {
                c.setAutoCommit(false);
                try {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + business + " (id) VALUES (?)")) {
                        ps.setString(1, id);
                        ps.executeUpdate();
                    }
                    outbox.write(c, OnceWiring.message(queue, id, ("{\"id\":\"" + id + "\"}")
                            .getBytes(StandardCharsets.UTF_8)));
                    if (rollBack) {
                        c.rollback();
                    } else {
                        c.commit();
                    }
                    return;
                } catch (SQLException e) {
                    rollBackQuietly(c);
                    throw e;
                }
            } catch (SQLException e) {
                if ("23505".equals(e.getSQLState())) {
                    return; // an earlier try whose answer was lost had committed: the row is there
                }
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                System.out.println("transaction of " + id + " failed, trying again: " + e.getMessage());
                Pause.millis(200);
            }
        }
    }

    private static void rollBackQuietly(Connection c) {
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // the connection is gone: the server rolls the transaction back
        }
    }

    private static BufferedWriter append(String file) throws java.io.IOException {
        return Files.newBufferedWriter(Path.of(file), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }
}
