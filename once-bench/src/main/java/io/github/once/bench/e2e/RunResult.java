package io.github.once.bench.e2e;

import java.util.Map;

/**
 * One variant's run: the effects counted, throughput from first delivery to last ack, the sorted per-message
 * latencies, peak heap, and the CPU time of each process involved while it consumed.
 */
record RunResult(Variant variant, int repetition, int messages, long effects, double seconds, long[] sortedLatencies,
                 long peakHeapBytes, StoreTimes storeTimes, Map<ProcessCpu.Part, Long> cpuNanos) {

    double messagesPerSecond() {
        return messages / seconds;
    }
}
