package io.github.once.bench.e2e;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The CPU figures of the end-to-end report: read from /proc for this JVM, and divided per message. */
class ProcessCpuTest {
    /** Where the busy loop's result goes, so that it is not optimised away. */
    static volatile long sink;

    @Test
    void theJvmsOwnCpuTimeIsCounted() {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        ProcessCpu before = ProcessCpu.sample();
        long started = threads.getCurrentThreadCpuTime();
        long spin = 0;
        while (threads.getCurrentThreadCpuTime() - started < 200_000_000L) { // 200 ms of this thread's CPU
            spin += System.nanoTime() % 7;
        }
        sink = spin;
        Map<ProcessCpu.Part, Long> used = ProcessCpu.sample().since(before);

        // The process's CPU includes this thread's 200 ms; /proc counts in ticks (10 ms on Linux).
        assertThat(used.get(ProcessCpu.Part.JVM)).as("JVM CPU ns").isGreaterThanOrEqualTo(190_000_000L);
    }

    @Test
    void theTableGivesMicrosecondsPerMessagePerProcessAndAddedToTheBaseline() {
        Report report = new Report();
        report.add(result(Variant.BASELINE, Map.of(ProcessCpu.Part.JVM, 10_000_000L, ProcessCpu.Part.RABBITMQ,
                200_000_000L)));
        report.add(result(Variant.ONCE_REDIS_BATCH, Map.of(ProcessCpu.Part.JVM, 80_000_000L,
                ProcessCpu.Part.RABBITMQ, 190_000_000L, ProcessCpu.Part.REDIS, 40_000_000L)));

        String table = report.cpuTable();

        assertThat(table).contains("| variant | jvm µs | rabbitmq µs | redis µs | postgresql µs | all µs | added µs |")
                .contains("| baseline | 10.0 | 200.0 | 0.0 | 0.0 | 210.0 | +0.0 |")
                .contains("| once-redis-batch | 80.0 | 190.0 | 40.0 | 0.0 | 310.0 | +100.0 |");
    }

    private static RunResult result(Variant variant, Map<ProcessCpu.Part, Long> cpu) {
        return new RunResult(variant, 0, 1_000, 1_000, 1.0, new long[] {1}, 0, new StoreTimes(), cpu);
    }
}
