package io.github.once.outbox.internal;

/** What became of one publish of an outbox row. */
public sealed interface PublishOutcome {

    /** The broker confirmed it and a queue took it. */
    record Confirmed() implements PublishOutcome {
    }

    /** The broker returned it as unroutable or refused it (a nack, or an exchange that does not exist). */
    record Rejected(String reason) implements PublishOutcome {
    }

    /** No answer in time, or the connection or channel went down: it may or may not have arrived. */
    record Unknown(String reason) implements PublishOutcome {
    }

    /** Not sent this round: an earlier message of its aggregate did not get through. */
    record HeldBack() implements PublishOutcome {
    }
}
