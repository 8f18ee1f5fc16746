package io.github.once.cli.demo;

import java.util.List;

/**
 * What one cell showed.
 *
 * @param expectedEffects effects a correct consumer makes (0 for a poison message, which belongs in the
 *                        dead-letter queue)
 * @param effects         effects that happened
 * @param duplicates      effects beyond the first
 * @param lost            messages that ended with neither their effect nor a dead-letter copy (dropped, left
 *                        unacknowledged, or looping with no end)
 * @param deadLettered    messages in the dead-letter queue
 * @param deliveries      deliveries the consumers received (a loop shows as many)
 * @param ending          how the cell ended
 * @param traps           the traps a failure fell into (trap rows only)
 * @param error           why the cell could not run, or null
 */
public record CellResult(
        Scenario scenario,
        int expectedEffects,
        int effects,
        int duplicates,
        int lost,
        int deadLettered,
        int deliveries,
        Ending ending,
        List<Trap> traps,
        long millis,
        String error) {

    public boolean failed() {
        return duplicates > 0 || lost > 0 || error != null;
    }

    static CellResult error(Scenario scenario, String error, long millis) {
        return new CellResult(scenario, scenario == Scenario.POISON ? 0 : 1, 0, 0, 0, 0, 0, Ending.ERROR, List.of(),
                millis, error);
    }

    /** How a cell's wait ended. */
    public enum Ending {
        /** Nothing left to deliver, nothing in progress. */
        SETTLED,
        /** A delivery sat unacknowledged on an open channel, with nothing else happening. */
        STUCK,
        /** A message kept coming back after nack(requeue=true). */
        LOOPING,
        /** Still moving when the cell's time ran out. */
        TIMED_OUT,
        /** The cell could not run (see its error). */
        ERROR
    }
}
