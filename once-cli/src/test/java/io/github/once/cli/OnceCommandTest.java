package io.github.once.cli;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OnceCommandTest {

    @Test
    void noCommandIsAUsageError() {
        Cli run = Cli.run();
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("a command is required: demo, inspect, stats, purge or dlq");
    }

    @Test
    void unknownCommandIsAUsageError() {
        Cli run = Cli.run("explode");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("Unmatched argument at index 0: 'explode'");
    }

    @Test
    void helpListsTheCommandsAndExitStatuses() {
        Cli run = Cli.run("--help");
        assertThat(run.exitCode()).isZero();
        assertThat(run.out()).contains("demo", "inspect", "stats", "purge", "dlq", "Exit status:", "the store has no Once records table");
    }

    @Test
    void eachCommandHasHelp() {
        for (String command : new String[] {"demo", "inspect", "stats", "purge", "dlq", "dlq list", "dlq move"}) {
            List<String> args = new ArrayList<>(List.of(command.split(" ")));
            args.add("--help");
            Cli run = Cli.run(args.toArray(new String[0]));
            assertThat(run.exitCode()).as(command).isZero();
            assertThat(run.out()).as(command).startsWith("Usage: once " + command);
        }
        assertThat(Cli.run("dlq", "list", "--help").out())
                .contains("--amqp-uri=URI", "(default amqp://guest:guest@127.0.0.1:5672,");
        assertThat(Cli.run("purge", "--help").out()).contains("--all-records", "--yes");
    }
}
