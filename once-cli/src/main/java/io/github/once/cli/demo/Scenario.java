package io.github.once.cli.demo;

/** The faults of the matrix's columns: the seed's three duplicate scenarios, a crash, a poison message, no ID. */
public enum Scenario {
    PRODUCER_RESEND("re-send", "producer re-send",
            "the producer's confirm timed out, so it sent the same message (same message_id) again"),
    ACK_LOST("ack-lost", "ack lost",
            "the consumer's connection dropped after the effect, before its ack reached the broker"),
    CRASH_MID_WORK("crash", "crash mid-work",
            "the consumer process died during the work, before the effect; a replacement took over"),
    CONCURRENT_REDELIVERY("concurrent", "concurrent redelivery",
            "the first consumer was cut off mid-work but kept working; the broker redelivered to a second one"),
    POISON("poison", "poison message",
            "the handler fails on this message every time"),
    MISSING_ID("no-id", "missing ID",
            "no message_id property and no id in the body");

    private final String code;
    private final String title;
    private final String description;

    Scenario(String code, String title, String description) {
        this.code = code;
        this.title = title;
        this.description = description;
    }

    /** Short name for the table header and JSON. */
    public String code() {
        return code;
    }

    public String title() {
        return title;
    }

    public String description() {
        return description;
    }

    /** Whether a second consumer takes over after the first one's fault. */
    boolean needsSecondConsumer() {
        return this == ACK_LOST || this == CRASH_MID_WORK || this == CONCURRENT_REDELIVERY;
    }

    /** Whether a good ending is the dead-letter queue rather than one effect. */
    boolean endsInDeadLetter() {
        return this == POISON || this == MISSING_ID;
    }
}
