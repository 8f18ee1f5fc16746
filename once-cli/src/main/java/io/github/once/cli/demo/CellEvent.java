package io.github.once.cli.demo;

/** What a consumer style did, as counted by the demo to name the trap a failed cell fell into. */
enum CellEvent {
    /** The delivery was acked before the work started. */
    ACKED_BEFORE_WORK,
    /** A failure was answered with nack(requeue=true). */
    NACK_REQUEUE,
    /** A message with no ID was acked and dropped. */
    DROPPED_MISSING_ID,
    /** "Being processed by another consumer": returned with neither ack nor nack. */
    LEFT_UNACKED,
    /** The check-then-lock guard skipped an ID it found processed. */
    SKIPPED_PROCESSED,
    /** The check-then-lock guard found the ID not processed and went on to lock. */
    CHECKED_NOT_PROCESSED
}
