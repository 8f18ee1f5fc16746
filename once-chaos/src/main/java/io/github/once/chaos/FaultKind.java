package io.github.once.chaos;

import java.util.EnumSet;
import java.util.Set;

/** The faults the harness injects, and the modes each applies to. */
enum FaultKind {
    CONSUMER_KILL("consumer SIGKILL", EnumSet.allOf(Mode.class), 500),
    CONNECTIONS_CLOSED("connections closed (rabbitmqctl)", EnumSet.allOf(Mode.class), 2000),
    BROKER_RESTART("broker stop_app/start_app", EnumSet.allOf(Mode.class), 5000),
    LEADER_KILL("quorum leader's node SIGKILL + restart", EnumSet.allOf(Mode.class), 12_000),
    REDIS_KILL("Redis SIGKILL + restart", EnumSet.of(Mode.REDIS, Mode.TIERED), 1000),
    REDIS_DATA_LOSS("Redis restart with its data lost", EnumSet.of(Mode.REDIS, Mode.TIERED), 1000),
    PG_TERMINATE("PostgreSQL backends terminated", EnumSet.of(Mode.JDBC_TX, Mode.TIERED, Mode.SPRING_TX, Mode.OUTBOX_TX), 500),
    PG_RESTART("PostgreSQL crash + restart", EnumSet.of(Mode.JDBC_TX, Mode.TIERED, Mode.SPRING_TX, Mode.OUTBOX_TX), 1500),
    MARIADB_KILL_CONNECTIONS("MariaDB connections killed", EnumSet.of(Mode.MARIADB_TX), 500),
    MARIADB_RESTART("MariaDB SIGKILL + restart", EnumSet.of(Mode.MARIADB_TX), 1500),
    STORE_STALL("store stalled (TCP proxy)", EnumSet.of(Mode.REDIS, Mode.JDBC_TX, Mode.TIERED, Mode.MARIADB_TX, Mode.SPRING_TX,
            Mode.OUTBOX_TX), 0),
    RELAY_KILL("outbox relay SIGKILL", EnumSet.of(Mode.OUTBOX_TX), 500);

    private final String label;
    private final Set<Mode> modes;
    private final long typicalMillis;

    FaultKind(String label, Set<Mode> modes, long typicalMillis) {
        this.label = label;
        this.modes = modes;
        this.typicalMillis = typicalMillis;
    }

    /** About how long injecting and recovering takes here, to space the plan. */
    long typicalMillis() {
        return typicalMillis;
    }

    String label() {
        return label;
    }

    boolean appliesTo(Mode mode) {
        return modes.contains(mode);
    }

    /** A SIGKILL of one of the run's own processes (a consumer or a relay), restarted after a pause. */
    boolean killsAProcess() {
        return this == CONSUMER_KILL || this == RELAY_KILL;
    }

    /** Whether the fault can cut a Redis completion short (so an effect repeats: the documented window). */
    boolean interruptsRedisCompletion() {
        return this == CONSUMER_KILL || this == REDIS_KILL || this == REDIS_DATA_LOSS || this == STORE_STALL;
    }
}
