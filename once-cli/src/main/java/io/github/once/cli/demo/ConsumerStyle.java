package io.github.once.cli.demo;

import java.util.List;

/** One row of the matrix: a way of consuming messages, started as one or two consumer processes per cell. */
interface ConsumerStyle extends AutoCloseable {

    /** Short name for JSON and tests, such as {@code no-guard} or {@code once-h2-tx}. */
    String code();

    /** The row's label in the table. */
    String label();

    /** Whether this is a Once row (held to zero duplicates and zero losses). */
    boolean once();

    /** The trap a duplicate effect in this row shows. */
    default Trap duplicateTrap() {
        return Trap.NO_GUARD;
    }

    /** Where this row's effects land for one cell. */
    default EffectSink effects(String cellId) {
        return EffectSink.ledger();
    }

    ConsumerProcess start(Cell cell, String name, boolean first) throws Exception;

    /** Queues besides the work queue that hold messages still to be handled (delay queues). */
    default List<String> retryQueues(String queue) {
        return List.of();
    }

    /** The dead-letter queue of {@code queue}, or null when this style has none. */
    default String deadLetterQueue(String queue) {
        return null;
    }

    @Override
    default void close() {
    }
}
