package io.github.once.spring.rabbit.internal;

import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.support.DefaultMessagePropertiesConverter;
import org.springframework.amqp.rabbit.support.MessagePropertiesConverter;

/**
 * A Spring {@link Message} as the amqp-client {@link Delivery} that once-rabbitmq's key extractors and
 * disposition read; it keeps the message, for extractors that need Spring's view of it.
 */
public final class SpringDelivery extends Delivery {
    static final MessagePropertiesConverter PROPERTIES = new DefaultMessagePropertiesConverter();

    private final Message message;

    private SpringDelivery(Message message) {
        super(envelope(message.getMessageProperties()),
                PROPERTIES.fromMessageProperties(message.getMessageProperties(), "UTF-8"), message.getBody());
        this.message = message;
    }

    public static SpringDelivery of(Message message) {
        return new SpringDelivery(message);
    }

    Message message() {
        return message;
    }

    private static Envelope envelope(MessageProperties p) {
        return new Envelope(p.getDeliveryTag(), Boolean.TRUE.equals(p.getRedelivered()), p.getReceivedExchange(),
                p.getReceivedRoutingKey());
    }
}
