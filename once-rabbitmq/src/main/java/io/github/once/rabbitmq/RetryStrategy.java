package io.github.once.rabbitmq;

/** How a message that must be tried again is moved. Both copy the message with a confirm first and ack second. */
public enum RetryStrategy {
    /**
     * To a delay queue, one per back-off level, whose message TTL dead-letters it back to the work queue. Needs a
     * broker that accepts {@code x-message-ttl} and {@code x-dead-letter-*} queue arguments.
     */
    DELAY_QUEUES,
    /**
     * To the tail of the work queue itself, with no delay. For brokers that refuse the delay-queue arguments;
     * still bounded by the maximum attempts, but a busy key is retried as fast as the queue turns over.
     */
    REQUEUE_TAIL
}
