package io.github.once.cli.demo;

/** The traps of the seed (and of its own sample code) a consumer style can fall into, as the demo names them. */
public enum Trap {
    NO_GUARD("trap 1, no idempotency guard", "the copy ran the effect again"),
    ACK_BEFORE_PROCESSING("trap 2, ack before processing", "the failure after the ack lost the message"),
    RETRY_LOOP("trap 3, retry without bound (sample trap 5)",
            "nack(requeue=true) on every failure looped the message and never dead-lettered it"),
    CHECK_THEN_LOCK_RACE("sample trap 1, check-then-lock race",
            "the second consumer checked before the first marked the ID processed, and locked after it released"),
    LOCKED_LEFT_UNACKED("sample traps 2 and 4, fixed lock and 'locked elsewhere' left unacked",
            "the delivery was left unacknowledged behind a 30 s lock, never processed"),
    MISSING_ID_DROPPED("sample trap 3, missing ID acked and dropped", "the message was lost silently");

    private final String title;
    private final String effect;

    Trap(String title, String effect) {
        this.title = title;
        this.effect = effect;
    }

    public String title() {
        return title;
    }

    public String effect() {
        return effect;
    }
}
