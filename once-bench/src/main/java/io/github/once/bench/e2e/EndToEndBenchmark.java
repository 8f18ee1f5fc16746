package io.github.once.bench.e2e;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.bench.Services;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The end-to-end harness: the same backlog of persistent messages consumed by the plain manual-ack consumer and
 * by Once over each store, in one process, repetitions interleaved with the variant order rotated, so drift on a
 * shared machine spreads over all variants. Run it with {@code scripts/bench.sh}, or after
 * {@code mvn -pl once-bench -am package -DskipTests}:
 * <pre>
 * java -cp "once-bench/target/classes:$(cat once-bench/target/bench-classpath.txt)" \
 *     io.github.once.bench.e2e.EndToEndBenchmark --messages 100000 --repetitions 3
 * </pre>
 */
@Command(name = "once-e2e", mixinStandardHelpOptions = true,
        description = "Throughput and added latency of Once against a plain RabbitMQ consumer.")
public final class EndToEndBenchmark implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--messages", defaultValue = "100000", description = "Messages per run (default ${DEFAULT-VALUE}).")
    int messages;

    @Option(names = "--repetitions", defaultValue = "3", description = "Runs per variant (default ${DEFAULT-VALUE}).")
    int repetitions;

    @Option(names = "--warmup-messages", defaultValue = "10000",
            description = "Messages of the unrecorded warm-up run per variant; 0 for none (default ${DEFAULT-VALUE}).")
    int warmupMessages;

    @Option(names = "--prefetch", defaultValue = "250", description = "basic.qos per consumer (default ${DEFAULT-VALUE}).")
    int prefetch;

    @Option(names = "--channels", defaultValue = "1",
            description = "Channels of each Once consumer and consumers of each Spring container, each with the "
                    + "prefetch (default ${DEFAULT-VALUE}).")
    int channels;

    @Option(names = "--max-batch", defaultValue = "0",
            description = "maxBatch of each Once consumer; 0 for the consumer's default (default ${DEFAULT-VALUE}).")
    int maxBatch;

    @Option(names = "--size", defaultValue = "1024", description = "Message body bytes (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--handler-cpu-micros", defaultValue = "0",
            description = "CPU time each handler spends per message, in every variant and the baseline; 0 for none "
                    + "(default ${DEFAULT-VALUE}).")
    int handlerCpuMicros;

    @Option(names = "--rate", defaultValue = "0",
            description = "Messages per second a publisher sends while the consumer runs, latency then timed from "
                    + "each message's publication; 0 to consume a backlog filled before the run (default "
                    + "${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--variants", split = ",",
            description = "Variants to run, comma-separated (default: all but spring-plain, spring-once-memory and "
                    + "spring-once-redis).")
    List<String> variants;

    @Option(names = "--output", description = "Also write the markdown table to this file.")
    Path output;

    public static void main(String[] args) {
        System.exit(new CommandLine(new EndToEndBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        check(messages >= 1, "messages must be at least 1, but was " + messages);
        check(repetitions >= 1, "repetitions must be at least 1, but was " + repetitions);
        check(warmupMessages >= 0, "warmup-messages must not be negative, but was " + warmupMessages);
        check(prefetch >= 1 && prefetch <= 65535, "prefetch must be 1 to 65535, but was " + prefetch);
        check(channels >= 1 && channels <= 256, "channels must be 1 to 256, but was " + channels);
        check(maxBatch >= 0, "max-batch must not be negative, but was " + maxBatch);
        check(size >= 0, "size must not be negative, but was " + size);
        check(handlerCpuMicros >= 0, "handler-cpu-micros must not be negative, but was " + handlerCpuMicros);
        check(rate >= 0, "rate must not be negative, but was " + rate);
        List<Variant> chosen = new ArrayList<>();
        if (variants == null || variants.isEmpty()) {
            chosen.addAll(Variant.defaults());
        } else {
            for (String label : variants) {
                chosen.add(Variant.fromLabel(label));
            }
        }
        Services services = Services.local();
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(services.amqpUri());
        Report report = new Report();
        try (Connection publishing = factory.newConnection("once-bench-publisher")) {
            QueueFiller filler = new QueueFiller(publishing, size);
            if (warmupMessages > 0) {
                for (Variant v : chosen) {
                    RunResult r = run(v, -1, warmupMessages, services, factory, filler);
                    log("warm-up %-18s %,9.0f msg/s", v.label(), r.messagesPerSecond());
                }
            }
            for (int rep = 0; rep < repetitions; rep++) {
                List<Variant> order = new ArrayList<>(chosen);
                Collections.rotate(order, -rep);
                for (Variant v : order) {
                    RunResult r = run(v, rep, messages, services, factory, filler);
                    report.add(r);
                    log("rep %d %-18s %,9.0f msg/s  p50 %,6d µs  p99 %,6d µs  peak heap %,5d MiB", rep + 1, v.label(),
                            r.messagesPerSecond(), Report.percentile(r.sortedLatencies(), 0.5) / 1000,
                            Report.percentile(r.sortedLatencies(), 0.99) / 1000, r.peakHeapBytes() >> 20);
                }
            }
        }
        String text = header() + "\n" + report.table() + "\nStore calls of the Once variants (the executor's own "
                + "timings, summed over all repetitions):\n\n" + report.storeTable()
                + "\nCPU per message, every process involved (from /proc, user and system time while the variant "
                + "consumed; median over the repetitions):\n\n" + report.cpuTable();
        System.out.println();
        System.out.println(text);
        if (output != null) {
            Files.writeString(output, text);
        }
        return 0;
    }

    /** One run of a variant over a fresh queue of {@code n} messages; throws unless each took effect once. */
    RunResult run(Variant variant, int rep, int n, Services services, ConnectionFactory factory, QueueFiller filler)
            throws Exception {
        String suffix = UUID.randomUUID().toString().substring(0, 8);
        String queue = "once-bench-" + variant.label() + "-" + suffix;
        String namespace = "bench-" + suffix;
        if (rate == 0) {
            filler.declareAndFill(queue, n);
        } else {
            filler.declare(queue);
        }
        System.gc();
        Meter meter = new Meter(n, handlerCpuMicros * 1_000L, rate > 0);
        long timeoutSeconds = 120 + n / 200 + (rate > 0 ? n / rate : 0);
        try (Connection consuming = factory.newConnection("once-bench-" + variant.label());
             HeapSampler heap = new HeapSampler()) {
            Variant.Run run = new Variant.Run(services, consuming, queue, namespace, prefetch, channels,
                    maxBatch, meter);
            Consumption consumption = variant.start(run);
            // From here to the last ack, before anything closes (a PostgreSQL backend that exits takes its CPU time
            // with it): the consumer's pools and connections are open at both samples.
            ProcessCpu cpuBefore = ProcessCpu.sample();
            Map<ProcessCpu.Part, Long> cpu;
            CompletableFuture<Void> publishing = rate == 0 ? CompletableFuture.completedFuture(null)
                    : CompletableFuture.runAsync(() -> publishPaced(filler, queue, n, meter));
            try {
                if (!meter.await(timeoutSeconds, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(variant.label() + ": only " + meter.recorded() + " of " + n
                            + " messages acked within " + Duration.ofSeconds(timeoutSeconds));
                }
                publishing.get(60, TimeUnit.SECONDS); // a publisher that failed ends the run with its cause
                cpu = ProcessCpu.sample().since(cpuBefore);
            } finally {
                consumption.close();
            }
            if (meter.failure() != null) {
                throw new IllegalStateException(variant.label() + ": " + meter.failure());
            }
            if (meter.effects() != n) {
                throw new IllegalStateException(variant.label() + ": " + meter.effects() + " effects for " + n
                        + " messages");
            }
            RunResult result = new RunResult(variant, rep, n, meter.effects(), meter.seconds(), meter.sortedLatencies(),
                    heap.peakBytes(), meter.storeTimes(), cpu);
            filler.delete(queue);
            return result;
        }
    }

    private void publishPaced(QueueFiller filler, String queue, int n, Meter meter) {
        try {
            filler.publishPaced(queue, n, rate, meter);
        } catch (Exception e) {
            meter.fail("the paced publisher failed: " + e);
            throw new IllegalStateException("paced publishing to " + queue + " failed", e);
        }
    }

    private String header() {
        Runtime rt = Runtime.getRuntime();
        return String.format(Locale.ROOT,
                "End to end, %s: %,d persistent messages of %d bytes per run, prefetch %d, %d repetitions "
                        + "(variant order rotated), %,d warm-up messages per variant; Once consumers and Spring "
                        + "containers with %d channel(s), maxBatch %s, handler CPU %d µs per message.%n"
                        + "Java %s, %d cores, max heap %d MiB, JVM args %s.%n"
                        + "%s; 'added' is the difference to the baseline's percentile in the same repetition, the "
                        + "median over the repetitions (their range in brackets).%n",
                LocalDate.now(), messages, size, prefetch, repetitions, warmupMessages, channels,
                maxBatch == 0 ? "default" : String.valueOf(maxBatch), handlerCpuMicros,
                System.getProperty("java.version"), rt.availableProcessors(), rt.maxMemory() >> 20,
                ManagementFactory.getRuntimeMXBean().getInputArguments(),
                rate == 0 ? "Latency: from the consumer taking a delivery in hand (Spring containers: the advice "
                        + "chain's start) to its ack written, the queue filled before each run"
                        : String.format(Locale.ROOT, "Paced: a publisher sends %,d msg/s while the consumer runs; "
                        + "latency from each message's publication to its ack written (throughput is then the "
                        + "rate, not a capacity)", rate));
    }

    /** Refuses a setting as a usage error of this command line, so it is printed where its other errors go. */
    private void check(boolean ok, String message) {
        if (!ok) {
            throw new CommandLine.ParameterException(spec.commandLine(), message);
        }
    }

    private static void log(String format, Object... args) {
        System.out.println(String.format(Locale.ROOT, format, args));
    }
}
