package io.github.once.bench.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import picocli.CommandLine;

/**
 * The harness's paced runs ({@code --rate}) on the real local RabbitMQ: the publisher sends while the consumer runs,
 * each message at its moment, and every variant's latency starts at the publication. Runs no benchmark.
 */
class PacedRunTest extends HarnessTest {

    private static final int MESSAGES = 200;
    private static final int RATE = 400;

    /**
     * Every message takes effect once and has a latency, and the run lasts as long as the schedule (a backlog of
     * 200 messages would be consumed in a few tens of milliseconds, not the half second the rate asks for).
     */
    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"BASELINE", "ONCE_MEMORY", "SPRING_ONCE_MEMORY"})
    void aPacedRunTakesEveryMessageOnceAtThePublishersRate(Variant variant) throws Exception {
        EndToEndBenchmark harness = new EndToEndBenchmark();
        new CommandLine(harness).parseArgs("--rate", Integer.toString(RATE));

        RunResult result = run(harness, variant, MESSAGES);

        assertThat(result.effects()).as("effects").isEqualTo(MESSAGES);
        assertThat(result.sortedLatencies()).as("latencies").hasSize(MESSAGES);
        assertThat(result.sortedLatencies()[0]).as("shortest latency, from publication, in ns").isPositive();
        double scheduled = (MESSAGES - 1) / (double) RATE;
        assertThat(result.seconds()).as("first delivery to last ack, in s").isGreaterThan(scheduled * 0.9);
    }

    /** A negative rate is refused before anything runs, with a usage error naming the value. */
    @Test
    void aNegativeRateIsRefusedWithItsValue() {
        StringWriter err = new StringWriter();
        CommandLine command = new CommandLine(new EndToEndBenchmark()).setErr(new PrintWriter(err));

        int exit = command.execute("--rate", "-5", "--variants", "baseline");

        assertThat(exit).as("exit code").isEqualTo(CommandLine.ExitCode.USAGE);
        assertThat(err.toString()).contains("rate must not be negative, but was -5");
    }
}
