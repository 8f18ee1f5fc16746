package io.github.once.bench.outbox;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariDataSource;

import io.github.once.bench.Services;
import io.github.once.outbox.Outbox;
import io.github.once.outbox.OutboxListener;
import io.github.once.outbox.OutboxRelay;
import io.github.once.rabbitmq.OutboundMessage;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/**
 * The outbox relay against the local PostgreSQL and RabbitMQ, once with polling and once with
 * {@code LISTEN/NOTIFY}:
 * <ul>
 *   <li>throughput: a backlog of committed rows, drained by the relays; messages per second from the relays' start
 *       to the last confirm;</li>
 *   <li>latency: messages committed one per transaction at a steady rate while the relay runs; from each commit
 *       (the writer's clock, right after {@code commit()}) to its confirm (the relay's listener, same process), p50
 *       and p99.</li>
 * </ul>
 * Run it after {@code mvn -pl once-bench -am package -DskipTests}:
 * <pre>
 * java -cp "once-bench/target/classes:$(cat once-bench/target/bench-classpath.txt)" \
 *     io.github.once.bench.outbox.OutboxBenchmark --messages 20000 --latency-messages 1000
 * </pre>
 */
@Command(name = "once-outbox-bench", mixinStandardHelpOptions = true,
        description = "Throughput and commit-to-confirm latency of the outbox relay.")
public final class OutboxBenchmark implements Callable<Integer> {

    @Option(names = "--messages", defaultValue = "20000", description = "Backlog for the throughput runs (default ${DEFAULT-VALUE}).")
    int messages;

    @Option(names = "--relays", defaultValue = "1", description = "Relays draining the backlog (default ${DEFAULT-VALUE}).")
    int relays;

    @Option(names = "--batch-size", defaultValue = "100", description = "Rows per claim (default ${DEFAULT-VALUE}).")
    int batchSize;

    @Option(names = "--latency-messages", defaultValue = "1000",
            description = "Messages of each latency run (default ${DEFAULT-VALUE}).")
    int latencyMessages;

    @Option(names = "--rate", defaultValue = "100", description = "Commits per second in the latency runs (default ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--poll-interval-ms", defaultValue = "1000",
            description = "The relay's poll interval, in both modes (default ${DEFAULT-VALUE}, the relay's default).")
    long pollMillis;

    @Option(names = "--size", defaultValue = "1024", description = "Message body bytes (default ${DEFAULT-VALUE}).")
    int size;

    private final Services services = Services.local();

    public static void main(String[] args) {
        System.exit(new CommandLine(new OutboxBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(services.amqpUri());
        System.out.printf(Locale.ROOT, "outbox relay, %d cores, %s%n", Runtime.getRuntime().availableProcessors(),
                services.jdbcUrl());
        System.out.println("| wake-up | throughput (msg/s, commit to confirm) | latency p50 (ms) | latency p99 (ms) |");
        System.out.println("|---|---|---|---|");
        try (HikariDataSource ds = services.dataSource("outbox-bench");
             Connection connection = factory.newConnection("once-outbox-bench")) {
            for (OutboxRelay.Wakeup wakeup : OutboxRelay.Wakeup.values()) {
                double throughput = throughput(ds, connection, wakeup);
                double[] latency = latency(ds, connection, wakeup);
                System.out.printf(Locale.ROOT, "| %s | %.0f | %.1f | %.1f |%n", wakeup, throughput, latency[0],
                        latency[1]);
            }
        }
        return 0;
    }

    private double throughput(HikariDataSource ds, Connection connection, OutboxRelay.Wakeup wakeup) throws Exception {
        try (Run run = new Run(ds, connection)) {
            Outbox outbox = run.outbox();
            for (int start = 0; start < messages; start += 100) {
                int n = Math.min(100, messages - start);
                try (java.sql.Connection c = ds.getConnection()) {
                    c.setAutoCommit(false);
                    List<OutboundMessage> batch = new ArrayList<>(n);
                    for (int i = 0; i < n; i++) {
                        batch.add(OutboundMessage.of("", run.queue, new byte[size]));
                    }
                    outbox.writeAll(c, batch, null);
                    c.commit();
                }
            }
            AtomicLong published = new AtomicLong();
            OutboxListener counter = new OutboxListener() {
                @Override
                public void published(String messageId, Duration commitToConfirm) {
                    published.incrementAndGet();
                }
            };
            long start = System.nanoTime();
            List<OutboxRelay> started = new ArrayList<>();
            for (int i = 0; i < relays; i++) {
                started.add(run.relay(wakeup, counter).start());
            }
            while (published.get() < messages) {
                Thread.sleep(5);
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            started.forEach(OutboxRelay::close);
            return messages / seconds;
        }
    }

    private double[] latency(HikariDataSource ds, Connection connection, OutboxRelay.Wakeup wakeup) throws Exception {
        try (Run run = new Run(ds, connection)) {
            Map<String, Long> committed = new ConcurrentHashMap<>();
            Map<String, Long> confirmed = new ConcurrentHashMap<>();
            OutboxListener clock = new OutboxListener() {
                @Override
                public void published(String messageId, Duration commitToConfirm) {
                    confirmed.put(messageId, System.nanoTime());
                }
            };
            Outbox outbox = run.outbox();
            OutboxRelay relay = run.relay(wakeup, clock).start();
            try {
                Thread.sleep(500); // let the listener connect before the first commit
                long interval = TimeUnit.SECONDS.toNanos(1) / rate;
                long next = System.nanoTime();
                for (int i = 0; i < latencyMessages; i++) {
                    LockSupport.parkNanos(next - System.nanoTime());
                    next += interval;
                    OutboundMessage m = OutboundMessage.of("", run.queue, new byte[size]);
                    try (java.sql.Connection c = ds.getConnection()) {
                        c.setAutoCommit(false);
                        outbox.write(c, m);
                        c.commit();
                    }
                    committed.put(m.messageId(), System.nanoTime());
                }
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (confirmed.size() < latencyMessages && System.nanoTime() < deadline) {
                    Thread.sleep(5);
                }
            } finally {
                relay.close();
            }
            double[] millis = new double[committed.size()];
            int n = 0;
            for (Map.Entry<String, Long> e : committed.entrySet()) {
                Long done = confirmed.get(e.getKey());
                if (done != null) {
                    // A confirm can beat the writer's own clock reading after commit(): count it as zero.
                    millis[n++] = Math.max(0, done - e.getValue()) / 1e6;
                }
            }
            double[] sorted = Arrays.copyOf(millis, n);
            Arrays.sort(sorted);
            return new double[] {percentile(sorted, 0.50), percentile(sorted, 0.99)};
        }
    }

    private static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    /** One run's table and queue, both fresh and dropped afterwards. */
    private final class Run implements AutoCloseable {
        final String table = "once_outbox_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        final String queue = "once-outbox-bench-" + UUID.randomUUID().toString().substring(0, 8);
        private final HikariDataSource ds;
        private final Connection connection;

        Run(HikariDataSource ds, Connection connection) throws Exception {
            this.ds = ds;
            this.connection = connection;
            try (java.sql.Connection c = ds.getConnection()) {
                Outbox.createTable(c, table);
            }
            try (Channel ch = connection.createChannel()) {
                ch.queueDeclare(queue, true, false, false, null);
            }
        }

        Outbox outbox() {
            return Outbox.builder().tableName(table).build();
        }

        OutboxRelay relay(OutboxRelay.Wakeup wakeup, OutboxListener listener) {
            return OutboxRelay.builder(ds, connection).tableName(table).batchSize(batchSize)
                    .pollInterval(Duration.ofMillis(pollMillis)).wakeup(wakeup).listener(listener).build();
        }

        @Override
        public void close() throws IOException, TimeoutException {
            try (Channel ch = connection.createChannel()) {
                ch.queueDelete(queue);
            }
            try (java.sql.Connection c = ds.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP TABLE IF EXISTS " + table);
            } catch (SQLException e) {
                System.err.println("could not drop " + table + ": " + e);
            }
        }
    }
}
