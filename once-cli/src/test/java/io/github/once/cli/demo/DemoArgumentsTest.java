package io.github.once.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.once.cli.Cli;
import io.github.once.cli.ExitCodes;
import io.github.once.cli.Services;
import org.junit.jupiter.api.Test;

/** Bad arguments and unreachable services: one clear line and a distinct exit status, never a stack trace. */
class DemoArgumentsTest {

    @Test
    void amqpUriWithAnotherScheme() {
        Cli run = Cli.run("demo", "--amqp-uri", "http://127.0.0.1:5672");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("--amqp-uri must start with amqp:// or amqps://, but was 'http://127.0.0.1:5672'");
    }

    @Test
    void amqpUriThatIsNotAUri() {
        Cli run = Cli.run("demo", "--amqp-uri", "amqp://guest:guest@127.0.0.1:5672/ bad");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("--amqp-uri is not a valid URI");
    }

    @Test
    void brokerNotListening() {
        int port = Services.deadPort();
        Cli run = Cli.run("demo", "--amqp-uri", "amqp://guest:guest@127.0.0.1:" + port);
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).startsWith("once: cannot reach the broker at 127.0.0.1:" + port)
                .doesNotContain("\tat ");
    }

    @Test
    void brokerRefusingTheCredentials() {
        Cli run = Cli.run("demo", "--amqp-uri", "amqp://guest:wrong@127.0.0.1:5672");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).startsWith("once: cannot reach the broker at 127.0.0.1:5672");
    }

    @Test
    void redisNotListening() {
        int port = Services.deadPort();
        Cli run = Cli.run("demo", "--redis-uri", "redis://127.0.0.1:" + port);
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).startsWith("once: cannot reach Redis at 127.0.0.1:" + port + " (");
    }

    @Test
    void verboseAddsTheStackTrace() {
        Cli run = Cli.run("demo", "--redis-uri", "redis://127.0.0.1:" + Services.deadPort(), "--verbose");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).contains("cannot reach Redis", "\tat ");
    }

    @Test
    void redisUriWithoutHost() {
        Cli run = Cli.run("demo", "--redis-uri", "redis:///0");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("--redis-uri needs a host");
    }

    @Test
    void databaseNotListening() {
        int port = Services.deadPort();
        Cli run = Cli.run("demo", "--jdbc-url", "jdbc:postgresql://127.0.0.1:" + port + "/test?user=postgres");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).startsWith("once: cannot reach jdbc:postgresql://127.0.0.1:" + port + "/test");
    }

    @Test
    void databaseThatDoesNotExist() {
        Cli run = Cli.run("demo", "--jdbc-url", "jdbc:postgresql://127.0.0.1:5432/no_such_db_for_once?user=postgres");
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(ExitCodes.UNREACHABLE);
        assertThat(run.err()).contains("no_such_db_for_once");
    }

    @Test
    void unsupportedJdbcUrl() {
        Cli run = Cli.run("demo", "--jdbc-url", "jdbc:sqlite:/tmp/x.db");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("--jdbc-url must be a jdbc:postgresql:, jdbc:mariadb:, jdbc:mysql: or jdbc:h2: URL");
    }

    @Test
    void parallelOutOfRange() {
        Cli run = Cli.run("demo", "--parallel", "0");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("--parallel must be 1 to 16, but was 0");
    }

    @Test
    void unknownOption() {
        Cli run = Cli.run("demo", "--colour");
        assertThat(run.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(run.err()).contains("Unknown option: '--colour'");
    }
}
