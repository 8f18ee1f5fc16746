package io.github.once.chaos;

/**
 * A fault as it happened: from when to when (epoch milliseconds, the clock the effects are stamped with), on
 * what (a worker incarnation or a node), and whether the injection worked.
 */
record FaultEvent(FaultKind kind, long startMillis, long endMillis, String target, boolean injected, String note) {

    /** Whether the fault was in force at some moment of {@code [from, to]}. */
    boolean overlaps(long from, long to) {
        return injected && startMillis <= to && endMillis >= from;
    }
}
