package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.DeadLetterReason;
import io.github.once.rabbitmq.KeyExtractor;

import java.util.function.Function;

/**
 * Finds each delivery's key: the extractor runs once per delivery (a JSON body is parsed once). A delivery without
 * one keeps the reason, for the dead-lettered copy and the log.
 */
public final class DeliveryKeys {
    private final KeyExtractor extractor;
    private final Function<Delivery, String> namespace;

    public DeliveryKeys(KeyExtractor extractor, Function<Delivery, String> namespace) {
        this.extractor = extractor;
        this.namespace = namespace;
    }

    public DeliveryKey resolve(Delivery delivery) {
        KeyExtractor.Lookup lookup;
        try {
            lookup = extractor.lookup(delivery); // the built-in ones never throw; an overridden one might
        } catch (RuntimeException e) {
            lookup = KeyExtractor.Lookup.missing("key extractor failed: " + e);
        }
        if (lookup instanceof KeyExtractor.Lookup.Missing missing) {
            return new DeliveryKey.Keyless(DeadLetterReason.MISSING_KEY, missing.detail());
        }
        if (lookup == null) {
            return new DeliveryKey.Keyless(DeadLetterReason.MISSING_KEY, "key extractor returned no lookup");
        }
        String id = ((KeyExtractor.Lookup.Found) lookup).id();
        try {
            return new DeliveryKey.Keyed(IdempotencyKey.of(namespace.apply(delivery), id));
        } catch (RuntimeException e) {
            return new DeliveryKey.Keyless(DeadLetterReason.INVALID_KEY, e.getMessage() == null ? e.toString()
                    : e.getMessage());
        }
    }
}
