package io.github.once.rabbitmq;

/** Headers Once puts on the messages it moves to a delay queue or the dead-letter queue. */
public final class OnceHeaders {
    private OnceHeaders() {
    }

    /** The attempt number of the delivery that carries it (absent: 1). Kept by Once, never read from {@code x-death}. */
    public static final String ATTEMPT = "x-once-attempt";
    /** On a dead-lettered message: why, one of {@link DeadLetterReason#code()}. */
    public static final String REASON = "x-once-reason";
    /** On a dead-lettered message: the last handler error, {@code class: message}, truncated. */
    public static final String ERROR = "x-once-error";
    /** On a message dead-lettered as {@code missing-key}: why, such as {@code body field order_id is null}. */
    public static final String DETAIL = "x-once-detail";
    /** On a dead-lettered message: how many attempts were made. */
    public static final String ATTEMPTS = "x-once-attempts";
    /** The exchange the message was first published to (kept across moves). */
    public static final String ORIGINAL_EXCHANGE = "x-once-original-exchange";
    /** The routing key the message was first published with (kept across moves). */
    public static final String ORIGINAL_ROUTING_KEY = "x-once-original-routing-key";
    /** On a dead-lettered message: the queue it was consumed from. */
    public static final String QUEUE = "x-once-queue";
}
