package io.github.once.rabbitmq;

/** The type of the queues Once declares. */
public enum QueueType {
    /** Classic queues; declared without an {@code x-queue-type} argument, so brokers that refuse it still work. */
    CLASSIC,
    /** Quorum queues ({@code x-queue-type=quorum}): replicated, for clusters. */
    QUORUM
}
