package io.github.once.rabbitmq;

/**
 * The broker answered that it did not take the message: a mandatory message returned as unroutable, a nack (a
 * queue at its length limit with {@code reject-publish}, say), or an exchange that does not exist. Unlike a
 * {@link PublishException} whose message may or may not have arrived, the answer is definite, so
 * {@link OncePublisher} does not re-send it: what to do next (fix the topology, back off) is the caller's call.
 */
public class RejectedMessageException extends PublishException {
    private final String exchange;
    private final String routingKey;
    private final String reason;

    public RejectedMessageException(String messageId, String exchange, String routingKey, String reason) {
        super(messageId, "message " + messageId + " to exchange '" + exchange + "' with routing key '" + routingKey
                + "' was rejected: " + reason);
        this.exchange = exchange;
        this.routingKey = routingKey;
        this.reason = reason;
    }

    public String exchange() {
        return exchange;
    }

    public String routingKey() {
        return routingKey;
    }

    /** The broker's answer, e.g. {@code returned as unroutable: 312 NO_ROUTE}. */
    public String reason() {
        return reason;
    }
}
