package io.github.once.bench.e2e;

import io.github.once.OnceListener;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spring container variants of the end-to-end harness, each over a small backlog on the real local RabbitMQ
 * (and Redis): the harness's own run, so the benchmark compares working setups. Runs no benchmark.
 */
class SpringContainerVariantsTest extends HarnessTest {

    private static final int MESSAGES = 300;

    /** Once's forms claim and complete each message in the store; the plain form calls none. */
    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"SPRING_PLAIN", "SPRING_ONCE_MEMORY", "SPRING_ONCE_REDIS"})
    void everyMessageTakesEffectOnceWithTheStoreCallsOfItsForm(Variant variant) throws Exception {
        RunResult result = run(harness(), variant, MESSAGES);

        assertThat(result.effects()).as("effects").isEqualTo(MESSAGES);
        assertThat(result.sortedLatencies()).as("latencies").hasSize(MESSAGES);
        int perMessage = variant == Variant.SPRING_PLAIN ? 0 : 1;
        assertThat(variant.guarded()).as("guarded").isEqualTo(perMessage == 1);
        assertThat(result.storeTimes().calls(OnceListener.StoreOperation.CLAIM)).as("claims").isEqualTo(perMessage * MESSAGES);
        assertThat(result.storeTimes().calls(OnceListener.StoreOperation.COMPLETE)).as("completions")
                .isEqualTo(perMessage * MESSAGES);
    }

    @Test
    void defaultListLeavesTheSpringContainerVariantsOut() {
        assertThat(Variant.defaults())
                .doesNotContain(Variant.SPRING_PLAIN, Variant.SPRING_ONCE_MEMORY, Variant.SPRING_ONCE_REDIS)
                .contains(Variant.BASELINE, Variant.ONCE_MEMORY, Variant.ONCE_REDIS, Variant.ONCE_JDBC_TX_BATCH);
    }

    /** The harness with its default settings (prefetch 250, one channel). */
    private static EndToEndBenchmark harness() {
        EndToEndBenchmark harness = new EndToEndBenchmark();
        new CommandLine(harness).parseArgs();
        return harness;
    }
}
