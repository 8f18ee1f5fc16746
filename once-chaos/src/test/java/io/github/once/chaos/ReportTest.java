package io.github.once.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

class ReportTest {

    private static ModeRun.Result result(Mode mode, List<String> lost) {
        Checker.Verdict v = new Checker.Verdict(mode, 10, 11, 10 - lost.size(), lost, 0, 0, Map.of(), List.of(),
                List.of(), Map.of());
        return new ModeRun.Result(v, List.of(new FaultEvent(FaultKind.CONSUMER_KILL, 1, 1, "w1.1", true, ""),
                new FaultEvent(FaultKind.LEADER_KILL, 2, 3, "chaos1@localhost", false, "boom")), 60_000, 0, true, "");
    }

    @Test
    void aFailingModeFailsTheRunUnlessItIsTheSelfTest() {
        Report.Line broken = new Report.Line("jdbc-tx", result(Mode.JDBC_TX, List.of("m3")), false);
        Report.Line selfTest = new Report.Line("self-test", result(Mode.MEMORY, List.of("m3")), true);
        Report.Line uncaught = new Report.Line("self-test", result(Mode.MEMORY, List.of()), true);

        assertThat(broken.asExpected()).isFalse();
        assertThat(selfTest.asExpected()).isTrue();
        assertThat(uncaught.asExpected()).isFalse();
    }

    @Test
    void theTablesCountInjectedAndFailedFaultsAndTheLostIds() {
        String md = Report.render("scripts/chaos.sh quick --seed 5", 5,
                List.of(new Report.Line("redis", result(Mode.REDIS, List.of("m3")), false)), 90_000);

        assertThat(md).contains("Rerun: `scripts/chaos.sh quick --seed 5`")
                .contains("| consumer SIGKILL | 1 |")
                .contains("| quorum leader's node SIGKILL + restart | 0 (+1 failed) |")
                .contains("| PostgreSQL crash + restart | - |")
                .contains("| redis | 10 | 11 | 9 | 1 | 0 (0) | - |")
                .contains("| FAIL |");
    }
}
