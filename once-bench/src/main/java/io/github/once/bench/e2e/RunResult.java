package io.github.once.bench.e2e;

/**
 * One variant's run: the effects counted, throughput from first delivery to last ack, the sorted per-message
 * latencies, peak heap.
 */
record RunResult(Variant variant, int repetition, int messages, long effects, double seconds, long[] sortedLatencies,
                 long peakHeapBytes, StoreTimes storeTimes) {

    double messagesPerSecond() {
        return messages / seconds;
    }
}
