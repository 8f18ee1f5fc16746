package io.github.once.bench.e2e;

import io.github.once.OnceListener;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The markdown table: per variant the median throughput over its repetitions, its ratio to the baseline's median
 * (and, for the variants that write the effect row, to {@code plain-jdbc-batch}'s),
 * per-message latency percentiles over all repetitions, what they add to the baseline's (per repetition: the median
 * of the differences and their range), and peak heap.
 */
final class Report {

    private final Map<Variant, List<RunResult>> byVariant = new LinkedHashMap<>();

    void add(RunResult result) {
        byVariant.computeIfAbsent(result.variant(), v -> new ArrayList<>()).add(result);
    }

    String table() {
        Summary baseline = byVariant.containsKey(Variant.BASELINE) ? summarize(byVariant.get(Variant.BASELINE)) : null;
        // The fair baseline of the variants that write the effect row: the same row, 100 per transaction, no guard.
        Summary rows = byVariant.containsKey(Variant.PLAIN_JDBC_BATCH)
                ? summarize(byVariant.get(Variant.PLAIN_JDBC_BATCH)) : null;
        StringBuilder out = new StringBuilder();
        out.append("| variant | msg/s (median) | runs msg/s | x baseline | x plain-jdbc-batch | p50 µs | p99 µs "
                + "| p99.9 µs | added p50 µs | added p99 µs | added p99.9 µs | peak heap MiB |\n");
        out.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<Variant, List<RunResult>> e : byVariant.entrySet()) {
            Summary s = summarize(e.getValue());
            out.append("| ").append(e.getKey().label())
                    .append(" | ").append(String.format(Locale.ROOT, "%,.0f", s.medianRate))
                    .append(" | ").append(s.rates)
                    .append(" | ").append(baseline == null ? "-" : String.format(Locale.ROOT, "%.2f", s.medianRate / baseline.medianRate))
                    .append(" | ").append(rows == null || !e.getKey().writesRows() ? "-"
                            : String.format(Locale.ROOT, "%.2f", s.medianRate / rows.medianRate))
                    .append(" | ").append(micros(s.p50))
                    .append(" | ").append(micros(s.p99))
                    .append(" | ").append(micros(s.p999))
                    .append(" | ").append(added(e.getValue(), 0.50))
                    .append(" | ").append(added(e.getValue(), 0.99))
                    .append(" | ").append(added(e.getValue(), 0.999))
                    .append(" | ").append(String.format(Locale.ROOT, "%.0f", s.peakHeap / (1024.0 * 1024.0)))
                    .append(" |\n");
        }
        return out.toString();
    }

    /** Store calls per message and their time, against the whole time per message: the harness's profile. */
    String storeTable() {
        StringBuilder out = new StringBuilder();
        out.append("| variant | µs per message | claim calls/msg | claim µs/msg | complete calls/msg | complete µs/msg "
                + "| store share |\n");
        out.append("|---|---:|---:|---:|---:|---:|---:|\n");
        for (Map.Entry<Variant, List<RunResult>> e : byVariant.entrySet()) {
            if (!e.getKey().guarded()) {
                continue;
            }
            StoreTimes times = new StoreTimes();
            long messages = 0;
            double seconds = 0;
            for (RunResult r : e.getValue()) {
                times.add(r.storeTimes());
                messages += r.messages();
                seconds += r.seconds();
            }
            long claimCalls = times.calls(OnceListener.StoreOperation.CLAIM);
            long claimNanos = times.nanos(OnceListener.StoreOperation.CLAIM);
            long completeCalls = times.calls(OnceListener.StoreOperation.COMPLETE);
            long completeNanos = times.nanos(OnceListener.StoreOperation.COMPLETE);
            double perMessage = seconds * 1e9 / messages;
            out.append("| ").append(e.getKey().label())
                    .append(" | ").append(String.format(Locale.ROOT, "%.1f", perMessage / 1000))
                    .append(" | ").append(String.format(Locale.ROOT, "%.3f", (double) claimCalls / messages))
                    .append(" | ").append(String.format(Locale.ROOT, "%.1f", claimNanos / 1000.0 / messages))
                    .append(" | ").append(String.format(Locale.ROOT, "%.3f", (double) completeCalls / messages))
                    .append(" | ").append(String.format(Locale.ROOT, "%.1f", completeNanos / 1000.0 / messages))
                    .append(" | ").append(String.format(Locale.ROOT, "%.0f%%",
                            100.0 * (claimNanos + completeNanos) / (seconds * 1e9)))
                    .append(" |\n");
        }
        return out.toString();
    }

    /**
     * What {@code runs} add to the baseline at percentile {@code p}, taken per repetition (each run against the
     * baseline's run of the same repetition, so a noisy moment of the machine falls on both): the median of those
     * differences and, over several repetitions, their range. "-" without a baseline.
     */
    private String added(List<RunResult> runs, double p) {
        List<RunResult> baseRuns = byVariant.get(Variant.BASELINE);
        if (baseRuns == null) {
            return "-";
        }
        List<Long> differences = new ArrayList<>();
        for (RunResult run : runs) {
            for (RunResult base : baseRuns) {
                if (base.repetition() == run.repetition()) {
                    differences.add(percentile(run.sortedLatencies(), p) - percentile(base.sortedLatencies(), p));
                }
            }
        }
        if (differences.isEmpty()) {
            return "-";
        }
        long[] sorted = differences.stream().mapToLong(Long::longValue).sorted().toArray();
        long median = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        return sorted.length == 1 ? micros(median)
                : micros(median) + " (" + micros(sorted[0]) + " to " + micros(sorted[sorted.length - 1]) + ")";
    }

    private static String micros(long nanos) {
        return String.format(Locale.ROOT, "%.0f", nanos / 1000.0);
    }

    /**
     * CPU microseconds per message of each process group, and in all, the median over a variant's repetitions;
     * "added" is the total against the baseline's.
     */
    String cpuTable() {
        StringBuilder out = new StringBuilder("| variant |");
        for (ProcessCpu.Part part : ProcessCpu.Part.values()) {
            out.append(' ').append(part.name().toLowerCase(Locale.ROOT)).append(" µs |");
        }
        out.append(" all µs | added µs |\n|---|");
        out.append("---:|".repeat(ProcessCpu.Part.values().length + 2)).append('\n');
        Double baseline = byVariant.containsKey(Variant.BASELINE) ? cpuPerMessage(byVariant.get(Variant.BASELINE), null)
                : null;
        for (Map.Entry<Variant, List<RunResult>> e : byVariant.entrySet()) {
            out.append("| ").append(e.getKey().label()).append(" |");
            for (ProcessCpu.Part part : ProcessCpu.Part.values()) {
                out.append(String.format(Locale.ROOT, " %.1f |", cpuPerMessage(e.getValue(), part)));
            }
            double all = cpuPerMessage(e.getValue(), null);
            out.append(String.format(Locale.ROOT, " %.1f | %s |\n", all,
                    baseline == null ? "-" : String.format(Locale.ROOT, "%+.1f", all - baseline)));
        }
        return out.toString();
    }

    /** The median over {@code runs} of CPU µs per message of {@code part} (all parts for null). */
    private static double cpuPerMessage(List<RunResult> runs, ProcessCpu.Part part) {
        double[] perMessage = new double[runs.size()];
        for (int i = 0; i < runs.size(); i++) {
            RunResult r = runs.get(i);
            long nanos = part == null ? r.cpuNanos().values().stream().mapToLong(Long::longValue).sum()
                    : r.cpuNanos().getOrDefault(part, 0L);
            perMessage[i] = nanos / 1_000.0 / r.messages();
        }
        Arrays.sort(perMessage);
        return perMessage[perMessage.length / 2];
    }

    private record Summary(double medianRate, String rates, long p50, long p99, long p999, long peakHeap) {
    }

    private static Summary summarize(List<RunResult> runs) {
        double[] rates = new double[runs.size()];
        StringBuilder list = new StringBuilder();
        int total = 0;
        long peak = 0;
        for (int i = 0; i < runs.size(); i++) {
            rates[i] = runs.get(i).messagesPerSecond();
            list.append(i == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%,.0f", rates[i]));
            total += runs.get(i).sortedLatencies().length;
            peak = Math.max(peak, runs.get(i).peakHeapBytes());
        }
        long[] all = new long[total];
        int at = 0;
        for (RunResult r : runs) {
            System.arraycopy(r.sortedLatencies(), 0, all, at, r.sortedLatencies().length);
            at += r.sortedLatencies().length;
        }
        Arrays.sort(all);
        Arrays.sort(rates);
        double median = rates.length % 2 == 1 ? rates[rates.length / 2]
                : (rates[rates.length / 2 - 1] + rates[rates.length / 2]) / 2;
        return new Summary(median, list.toString(), percentile(all, 0.50), percentile(all, 0.99),
                percentile(all, 0.999), peak);
    }

    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int index = (int) Math.ceil(p * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
