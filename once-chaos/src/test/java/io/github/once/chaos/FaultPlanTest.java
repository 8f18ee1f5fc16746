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
    void theMariaDbModeGetsItsOwnStoreFaultsAndNoOtherStoresFaults() {
        FaultPlan mariadb = FaultPlan.draw(7, Mode.MARIADB_TX, SOME, 3, 3);

        assertThat(mariadb.faults()).extracting(FaultPlan.Fault::kind)
                .containsOnly(FaultKind.CONSUMER_KILL, FaultKind.CONNECTIONS_CLOSED, FaultKind.BROKER_RESTART,
                        FaultKind.LEADER_KILL, FaultKind.MARIADB_KILL_CONNECTIONS, FaultKind.MARIADB_RESTART,
                        FaultKind.STORE_STALL)
                .hasSize(3 + 6 * 2);
        for (Mode other : new Mode[] {Mode.JDBC_TX, Mode.TIERED, Mode.REDIS, Mode.MEMORY}) {
            assertThat(FaultPlan.draw(7, other, SOME, 3, 3).faults()).extracting(FaultPlan.Fault::kind)
                    .doesNotContain(FaultKind.MARIADB_KILL_CONNECTIONS, FaultKind.MARIADB_RESTART);
        }
    }

    @Test
    void theMariaDbModeLeavesTheOtherModesPlansAsTheyWere() {
        // Seeds in the docs replay their runs: these spans were drawn before the MariaDB mode and its kinds existed
        // (a new mode goes last, since a mode's position seeds its plan, and its kinds apply to it alone).
        assertThat(FaultPlan.draw(644663, Mode.JDBC_TX, SOME, 3, 3).spanMillis()).isEqualTo(63_417);
        assertThat(FaultPlan.draw(644663, Mode.TIERED, SOME, 3, 3).spanMillis()).isEqualTo(66_035);
        assertThat(FaultPlan.draw(644663, Mode.REDIS, SOME, 3, 3).spanMillis()).isEqualTo(58_457);
        assertThat(FaultPlan.draw(644663, Mode.MEMORY, SOME, 3, 3).spanMillis()).isEqualTo(47_499);
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
