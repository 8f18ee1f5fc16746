package io.github.once.rabbitmq;

/** What an {@link OnceConsumer} is doing now ({@link OnceConsumer#state()}). */
public enum ConsumerState {
    /** Built, not started yet. */
    NOT_STARTED,
    /** Taking deliveries. */
    RUNNING,
    /** Paused: the store (or the broker, for moves) could not be reached; it probes again with back-off. */
    PAUSED,
    /** The connection to the broker is lost; the client's automatic recovery brings the consumer back. */
    DISCONNECTED,
    /** Closed. */
    CLOSED
}
