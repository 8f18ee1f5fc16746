package io.github.once;

/** Where a record stands. An absent record (never claimed, released, or expired) has no state. */
public enum RecordState {
    /** Claimed by the holder of the current fencing token until its lease deadline. */
    IN_PROGRESS,
    /** The work is done; the result is kept until the record expires. */
    COMPLETED
}
