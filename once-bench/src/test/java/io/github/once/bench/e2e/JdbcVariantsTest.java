package io.github.once.bench.e2e;

import io.github.once.bench.Services;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

import com.zaxxer.hikari.HikariDataSource;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The variants that write the effect row, guarded or not, on the real RabbitMQ and PostgreSQL: every message's
 * row is written (an insert that fails fails the run), every message is acked once with a latency, and the run's
 * rows are gone after it. Runs no benchmark.
 */
class JdbcVariantsTest extends HarnessTest {

    private static final int MESSAGES = 250; // not a multiple of 100: the batch baseline's last transaction is short

    @ParameterizedTest
    @EnumSource(value = Variant.class, names = {"PLAIN_JDBC", "PLAIN_JDBC_BATCH", "ONCE_JDBC", "ONCE_JDBC_TX",
            "ONCE_JDBC_TX_BATCH"})
    void everyMessageWritesItsRowAndIsAckedOnce(Variant variant) throws Exception {
        EndToEndBenchmark harness = new EndToEndBenchmark();
        new CommandLine(harness).parseArgs();
        long rowsBefore = rows();

        RunResult result = run(harness, variant, MESSAGES);

        assertThat(result.effects()).as("rows written").isEqualTo(MESSAGES);
        assertThat(result.sortedLatencies()).as("acks with a latency").hasSize(MESSAGES);
        assertThat(rows()).as("rows left after the run").isEqualTo(rowsBefore);
    }

    private static long rows() throws Exception {
        try (HikariDataSource ds = Services.local().dataSource("jdbc-variants-test");
             Connection c = ds.getConnection()) {
            EffectRows.create(ds);
            try (Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SELECT count(*) FROM " + EffectRows.TABLE)) {
                r.next();
                return r.getLong(1);
            }
        }
    }
}
