package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Delivery;

/**
 * One delivery as received, stamped with the channel and the generation it came on: its tag means something
 * only on that channel in that generation.
 */
public record Inbound(Delivery delivery, long generation, Channel channel) {

    public long tag() {
        return delivery.getEnvelope().getDeliveryTag();
    }

    /** Whether both came on the same channel in the same generation, so their tags are comparable. */
    boolean sameIncarnation(Inbound other) {
        return generation == other.generation && channel == other.channel;
    }
}
