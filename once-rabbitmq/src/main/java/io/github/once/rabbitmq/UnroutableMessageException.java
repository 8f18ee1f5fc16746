package io.github.once.rabbitmq;

/** The broker confirmed the publish but no queue took it (a mandatory message was returned). Not retried. */
public class UnroutableMessageException extends PublishException {
    private final String exchange;
    private final String routingKey;
    private final int replyCode;
    private final String replyText;

    public UnroutableMessageException(String messageId, String exchange, String routingKey, int replyCode,
                                      String replyText) {
        super(messageId, "message " + messageId + " to exchange '" + exchange + "' with routing key '" + routingKey
                + "' was returned as unroutable: " + replyCode + " " + replyText);
        this.exchange = exchange;
        this.routingKey = routingKey;
        this.replyCode = replyCode;
        this.replyText = replyText;
    }

    public String exchange() {
        return exchange;
    }

    public String routingKey() {
        return routingKey;
    }

    public int replyCode() {
        return replyCode;
    }

    public String replyText() {
        return replyText;
    }
}
