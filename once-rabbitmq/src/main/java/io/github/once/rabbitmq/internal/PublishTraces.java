package io.github.once.rabbitmq.internal;

import io.github.once.OnceObservation;
import io.github.once.rabbitmq.OutboundMessage;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

/** The publisher's side of tracing: a message sent inside an observation carries its context in its headers. */
public final class PublishTraces {
    private PublishTraces() {
    }

    /** {@code message} with the context of the observation open on this thread, or unchanged when none is. */
    public static OutboundMessage traced(ObservationRegistry registry, OutboundMessage message) {
        Observation current = registry.getCurrentObservation();
        if (current == null) {
            return message;
        }
        String destination = message.exchange().isEmpty() ? message.routingKey() : message.exchange();
        return message.withProperties(message.properties().builder()
                .headers(OnceObservation.inject(current, "publish", destination, message.properties().getHeaders()))
                .build());
    }
}
