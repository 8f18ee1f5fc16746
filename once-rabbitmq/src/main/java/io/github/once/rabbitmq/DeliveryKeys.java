package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;

import java.util.Optional;
import java.util.function.Function;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Finds each delivery's key: the extractor runs once per delivery (a JSON body is parsed once). */
final class DeliveryKeys {
    private static final Logger log = LoggerFactory.getLogger(DeliveryKeys.class);

    private final KeyExtractor extractor;
    private final Function<Delivery, String> namespace;

    DeliveryKeys(KeyExtractor extractor, Function<Delivery, String> namespace) {
        this.extractor = extractor;
        this.namespace = namespace;
    }

    DeliveryKey resolve(Delivery delivery) {
        Optional<String> id;
        try {
            id = extractor.extract(delivery);
        } catch (RuntimeException e) {
            log.warn("The key extractor failed on delivery {}: {}", delivery.getEnvelope().getDeliveryTag(),
                    e.toString());
            return new DeliveryKey.Keyless(DeadLetterReason.MISSING_KEY);
        }
        if (id == null || id.isEmpty()) {
            return new DeliveryKey.Keyless(DeadLetterReason.MISSING_KEY);
        }
        try {
            return new DeliveryKey.Keyed(IdempotencyKey.of(namespace.apply(delivery), id.get()));
        } catch (RuntimeException e) {
            log.warn("No usable key for delivery {}: {}", delivery.getEnvelope().getDeliveryTag(), e.toString());
            return new DeliveryKey.Keyless(DeadLetterReason.INVALID_KEY);
        }
    }
}
