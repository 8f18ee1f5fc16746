package io.github.once.chaos;

import java.util.Arrays;
import java.util.stream.Collectors;

/** Which store the consumers use, and what the checker allows for it. */
enum Mode {
    /** PostgreSQL, the effect a row written in the handler's transaction: no allowance at all. */
    JDBC_TX("jdbc-tx", "none"),
    /**
     * Redis in front of PostgreSQL (the tiered store), transactional: the store of record holds every claim, so no
     * fault of the front (killed, restarted empty, stalled) or of PostgreSQL may repeat an effect.
     */
    TIERED("tiered", "none"),
    /** Redis: a repeat only from the documented crash window or from Redis losing its data, each explained. */
    REDIS("redis", "crash window or data loss, each explained"),
    /** One in-memory store per process: repeats across processes are expected and only counted. */
    MEMORY("memory", "any (records live in one process)"),
    /**
     * MariaDB, the effect a row written in the handler's transaction, as {@link #JDBC_TX}: no allowance at all. Last
     * because a mode's position seeds its fault plan: the other modes' plans stay as they were.
     */
    MARIADB_TX("mariadb-tx", "none"),
    /**
     * As {@link #JDBC_TX}, but each consumer process is a Spring Boot application whose {@code @RabbitListener @Once
     * @Transactional} method writes the effect in Spring's transaction ({@link SpringWorker}): no allowance at all.
     */
    SPRING_TX("spring-tx", "none"),
    /**
     * End to end from the producer: a producer process commits business rows with {@code Outbox.write} in the same
     * transactions (and rolls a share back), relay processes publish, consumers as {@link #JDBC_TX}. Every committed
     * row must have exactly one effect and no rolled-back row any: no allowance at all.
     */
    OUTBOX_TX("outbox-tx", "none");

    private final String label;
    private final String allowance;

    Mode(String label, String allowance) {
        this.label = label;
        this.allowance = allowance;
    }

    /** Whether the effect is written on the record's transaction, in the run's private PostgreSQL or MariaDB. */
    boolean transactional() {
        return this != REDIS && this != MEMORY;
    }

    /** Whether the records (and so the transactional effects) live in the run's private MariaDB. */
    boolean onMariaDb() {
        return this == MARIADB_TX;
    }

    String label() {
        return label;
    }

    String allowance() {
        return allowance;
    }

    static Mode of(String label) {
        return Arrays.stream(values()).filter(m -> m.label.equals(label)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no mode '" + label + "'; use one of "
                        + Arrays.stream(values()).map(Mode::label).collect(Collectors.joining(", "))));
    }
}
