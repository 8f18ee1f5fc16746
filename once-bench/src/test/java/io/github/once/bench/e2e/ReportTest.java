package io.github.once.bench.e2e;

import java.util.Map;
import java.util.stream.LongStream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The latency columns of the end-to-end table: what a variant adds is taken per repetition, then summarised. */
class ReportTest {

    @Test
    void addedLatencyIsTheMedianOfThePerRepetitionDifferencesWithTheirRange() {
        Report report = new Report();
        // The baseline's repetitions differ a lot (a noisy machine); the variant adds 1, 3 and 2 ms to each.
        long[] baseline = {1_000, 50_000, 9_000};
        long[] added = {1_000, 3_000, 2_000};
        for (int rep = 0; rep < 3; rep++) {
            report.add(run(Variant.BASELINE, rep, baseline[rep]));
            report.add(run(Variant.ONCE_MEMORY, rep, baseline[rep] + added[rep]));
        }

        String table = report.table();

        // Each run's latencies are all one value (in µs), so every percentile is that value; pooled over the
        // repetitions the variant's p99 would be 53 ms against the baseline's 50, but per repetition it adds 1 to 3.
        assertThat(table).contains("| p99.9 µs | added p50 µs | added p99 µs | added p99.9 µs |");
        assertThat(table).containsPattern("\\| once-memory \\|[^\\n]*\\| 2000 \\(1000 to 3000\\) \\| 2000 \\(1000 to "
                + "3000\\) \\| 2000 \\(1000 to 3000\\) \\|");
        assertThat(table).containsPattern("\\| baseline \\|[^\\n]*\\| 0 \\(0 to 0\\) \\|");
    }

    @Test
    void oneRepetitionGivesItsDifferenceAlone() {
        Report report = new Report();
        report.add(run(Variant.BASELINE, 0, 4_000));
        report.add(run(Variant.ONCE_MEMORY, 0, 4_500));

        assertThat(report.table()).containsPattern("\\| once-memory \\|[^\\n]*\\| 500 \\| 500 \\| 500 \\|");
    }

    /** A run of 1,000 messages whose latencies are all {@code micros}. */
    private static RunResult run(Variant variant, int rep, long micros) {
        long[] latencies = LongStream.generate(() -> micros * 1_000).limit(1_000).toArray();
        return new RunResult(variant, rep, 1_000, 1_000, 1.0, latencies, 0, new StoreTimes(), Map.of());
    }
}
