package io.github.once.chaos;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

class CheckerTest {

    private static final long WINDOW = 3000;
    private static final long LEASE = 5000;
    private final Checker checker = new Checker(WINDOW, LEASE);

    private static EffectLedger.Effect effect(String id, String worker, long at) {
        return new EffectLedger.Effect(id, worker, at);
    }

    private static FaultEvent fault(FaultKind kind, long start, long end, String target) {
        return new FaultEvent(kind, start, end, target, true, "");
    }

    /** m0 took effect in w1.1 at 1000 and again in w2.1 at 9000. */
    private Checker.Verdict repeatedOnce(Mode mode, FaultEvent... faults) {
        return checker.check(mode, Set.of("m0"), 1,
                List.of(effect("m0", "w1.1", 1000), effect("m0", "w2.1", 9000)), Map.of(), List.of(faults));
    }

    @Test
    void everyIdOnceIsAPass() {
        Checker.Verdict v = checker.check(Mode.JDBC_TX, Set.of("m0", "m1"), 3,
                List.of(effect("m0", "w1.1", 10), effect("m1", "w2.1", 20)), Map.of(), List.of());

        assertThat(v.passed()).isTrue();
        assertThat(v.lost()).isEmpty();
        assertThat(v.extraEffects()).isZero();
        assertThat(v.sends()).isEqualTo(3);
    }

    @Test
    void aPublishedIdWithoutEffectIsLostUnlessDeadLettered() {
        Checker.Verdict v = checker.check(Mode.REDIS, Set.of("m0", "m1", "m2"), 3,
                List.of(effect("m0", "w1.1", 10)), Map.of("m2", "max-attempts"), List.of());

        assertThat(v.lost()).containsExactly("m1");
        assertThat(v.deadLettered()).containsOnlyKeys("m2");
        assertThat(v.passed()).isFalse();
    }

    @Test
    void anEffectOrDeadLetterNobodyPublishedIsUnexpected() {
        Checker.Verdict v = checker.check(Mode.MEMORY, Set.of("m0"), 1,
                List.of(effect("m0", "w1.1", 10), effect("x9", "w1.1", 11)), Map.of("x8", "conflict"), List.of());

        assertThat(v.unexpected()).containsExactlyInAnyOrder("x9 (effect)", "x8 (dead-lettered)");
        assertThat(v.passed()).isFalse();
    }

    @Test
    void transactionalModeAllowsNoRepeatWhateverTheFaults() {
        Checker.Verdict v = repeatedOnce(Mode.JDBC_TX, fault(FaultKind.CONSUMER_KILL, 1100, 1100, "w1.1"));

        assertThat(v.duplicatedIds()).isEqualTo(1);
        assertThat(v.unexplained()).hasSize(1);
        assertThat(v.passed()).isFalse();
    }

    @Test
    void mariaDbTransactionalModeAllowsNoRepeatEvenAfterItsServerCrashed() {
        Checker.Verdict crashed = repeatedOnce(Mode.MARIADB_TX,
                fault(FaultKind.MARIADB_RESTART, 1002, 2500, "mariadb"),
                fault(FaultKind.CONSUMER_KILL, 1003, 1003, "w1.1"));
        Checker.Verdict once = checker.check(Mode.MARIADB_TX, Set.of("m0", "m1"), 2,
                List.of(effect("m0", "w1.1", 10), effect("m1", "w2.1", 20)), Map.of(),
                List.of(fault(FaultKind.MARIADB_KILL_CONNECTIONS, 15, 16, "4 connections")));

        assertThat(crashed.unexplained()).hasSize(1);
        assertThat(crashed.passed()).isFalse();
        assertThat(once.passed()).isTrue();
    }

    @Test
    void tieredModeAllowsNoRepeatEvenWhenItsRedisFrontLostItsData() {
        Checker.Verdict wiped = checker.check(Mode.TIERED, Set.of("m0"), 1,
                List.of(effect("m0", "w1.1", 1000), effect("m0", "w2.1", 60_000)), Map.of(),
                List.of(fault(FaultKind.REDIS_DATA_LOSS, 30_000, 30_500, "redis")));
        Checker.Verdict killed = repeatedOnce(Mode.TIERED, fault(FaultKind.REDIS_KILL, 1002, 1002, "redis"));

        assertThat(wiped.passed()).isFalse();
        assertThat(wiped.unexplained()).hasSize(1);
        assertThat(killed.passed()).isFalse();
    }

    @Test
    void redisRepeatAfterTheKillOfTheProcessThatMadeTheEffectIsTheCrashWindow() {
        Checker.Verdict v = repeatedOnce(Mode.REDIS, fault(FaultKind.CONSUMER_KILL, 1002, 1002, "w1.1"));

        assertThat(v.passed()).isTrue();
        assertThat(v.explained()).containsEntry(Checker.Reason.CRASH_WINDOW, 1);
    }

    @Test
    void redisRepeatIsNotExplainedByTheKillOfAnotherProcessOrAKillOutsideTheWindow() {
        Checker.Verdict other = repeatedOnce(Mode.REDIS, fault(FaultKind.CONSUMER_KILL, 1002, 1002, "w3.1"));
        Checker.Verdict late = repeatedOnce(Mode.REDIS,
                fault(FaultKind.CONSUMER_KILL, 1000 + WINDOW + 1, 1000 + WINDOW + 1, "w1.1"));

        assertThat(other.passed()).isFalse();
        assertThat(late.passed()).isFalse();
    }

    @Test
    void redisRepeatDuringAStoreStallOrAfterDataLossIsExplained() {
        Checker.Verdict stall = repeatedOnce(Mode.REDIS, fault(FaultKind.STORE_STALL, 500, 2500, "2000 ms"));
        Checker.Verdict wiped = checker.check(Mode.REDIS, Set.of("m0"), 1,
                List.of(effect("m0", "w1.1", 1000), effect("m0", "w2.1", 60_000)), Map.of(),
                List.of(fault(FaultKind.REDIS_DATA_LOSS, 30_000, 30_500, "redis")));

        assertThat(stall.explained()).containsEntry(Checker.Reason.CRASH_WINDOW, 1);
        assertThat(wiped.explained()).containsEntry(Checker.Reason.DATA_LOSS, 1);
        assertThat(stall.passed()).isTrue();
        assertThat(wiped.passed()).isTrue();
    }

    @Test
    void redisDataLossWhileTheFirstHandlerHeldItsLeaseExplainsTheRepeat() {
        Checker.Verdict wipedDuringLease = repeatedOnce(Mode.REDIS,
                fault(FaultKind.REDIS_DATA_LOSS, 1000 - LEASE + 100, 1000 - LEASE + 300, "redis"));
        Checker.Verdict wipedLongBefore = repeatedOnce(Mode.REDIS,
                fault(FaultKind.REDIS_DATA_LOSS, 1000 - LEASE - 500, 1000 - LEASE - 300, "redis"));

        assertThat(wipedDuringLease.explained()).containsEntry(Checker.Reason.DATA_LOSS, 1);
        assertThat(wipedLongBefore.passed()).isFalse();
    }

    @Test
    void redisRepeatNearABrokerFaultIsNotExplained() {
        Checker.Verdict v = repeatedOnce(Mode.REDIS, fault(FaultKind.LEADER_KILL, 1001, 12_000, "chaos1@localhost"));

        assertThat(v.unexplained()).hasSize(1);
    }

    @Test
    void aFaultThatWasNotInjectedExplainsNothing() {
        FaultEvent failed = new FaultEvent(FaultKind.CONSUMER_KILL, 1002, 1002, "w1.1", false, "boom");
        Checker.Verdict v = repeatedOnce(Mode.REDIS, failed);

        assertThat(v.passed()).isFalse();
    }

    @Test
    void inMemoryRepeatsAreCountedAndAllowed() {
        Checker.Verdict v = checker.check(Mode.MEMORY, Set.of("m0"), 1,
                List.of(effect("m0", "w1.1", 1000), effect("m0", "w2.1", 1001), effect("m0", "w3.1", 1002)),
                Map.of(), List.of());

        assertThat(v.duplicatedIds()).isEqualTo(1);
        assertThat(v.extraEffects()).isEqualTo(2);
        assertThat(v.explained()).containsEntry(Checker.Reason.PER_PROCESS_STORE, 2);
        assertThat(v.passed()).isTrue();
    }
}
