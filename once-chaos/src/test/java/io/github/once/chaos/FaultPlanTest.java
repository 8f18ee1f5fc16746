package io.github.once.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Test;

class FaultPlanTest {

    private static final Map<FaultKind, Integer> SOME = Size.counts(2, 3);

    @Test
    void theSameNumberDrawsTheSamePlan() {
        assertThat(FaultPlan.draw(42, Mode.REDIS, SOME, 3, 3)).isEqualTo(FaultPlan.draw(42, Mode.REDIS, SOME, 3, 3));
        assertThat(FaultPlan.draw(42, Mode.REDIS, SOME, 3, 3)).isNotEqualTo(FaultPlan.draw(43, Mode.REDIS, SOME, 3, 3));
    }

    @Test
    void eachModeGetsOnlyItsKindsAsManyAsAsked() {
        FaultPlan memory = FaultPlan.draw(7, Mode.MEMORY, SOME, 3, 3);
        FaultPlan jdbc = FaultPlan.draw(7, Mode.JDBC_TX, SOME, 3, 3);

        assertThat(memory.faults()).extracting(FaultPlan.Fault::kind)
                .containsOnly(FaultKind.CONSUMER_KILL, FaultKind.CONNECTIONS_CLOSED, FaultKind.BROKER_RESTART,
                        FaultKind.LEADER_KILL)
                .hasSize(3 + 2 + 2 + 2);
        assertThat(jdbc.faults()).extracting(FaultPlan.Fault::kind)
                .doesNotContain(FaultKind.REDIS_KILL, FaultKind.REDIS_DATA_LOSS)
                .filteredOn(k -> k == FaultKind.PG_RESTART).hasSize(2);
        // The tiered store: its Redis front's faults and its PostgreSQL's, every one of them.
        assertThat(FaultPlan.draw(7, Mode.TIERED, SOME, 3, 3).faults()).extracting(FaultPlan.Fault::kind)
                .contains(FaultKind.REDIS_KILL, FaultKind.REDIS_DATA_LOSS, FaultKind.PG_TERMINATE, FaultKind.PG_RESTART,
                        FaultKind.STORE_STALL, FaultKind.CONSUMER_KILL);
    }

    @Test
    void faultsComeInOrderOnExistingTargets() {
        FaultPlan plan = FaultPlan.draw(11, Mode.REDIS, Size.counts(20, 20), 3, 3);

        long previous = -1;
        for (FaultPlan.Fault f : plan.faults()) {
            assertThat(f.atMillis()).isGreaterThan(previous);
            assertThat(f.target()).isBetween(0, 2);
            previous = f.atMillis();
        }
        assertThat(plan.spanMillis()).isGreaterThan(previous);
    }
}
