package io.github.once.rabbitmq;

import io.github.once.OnceException;

/**
 * A publish was not confirmed (nacked, timed out, or the connection was lost) after every allowed try. The
 * broker may still hold a copy: re-send with the same {@link #messageId()} and the consumer skips the duplicate.
 */
public class PublishException extends OnceException {
    private final String messageId;

    public PublishException(String messageId, String message, Throwable cause) {
        super(message, cause);
        this.messageId = messageId;
    }

    public PublishException(String messageId, String message) {
        this(messageId, message, null);
    }

    /** The ID the message was sent with, to re-send it later as the same message. */
    public String messageId() {
        return messageId;
    }
}
