package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.Delivery;

import io.github.once.rabbitmq.KeyExtractor;

import java.util.Optional;
import java.util.function.Function;

/** A key extractor that gives reasons: the form of every built-in one, and of {@link KeyExtractor#of}. */
public final class LookupExtractor implements KeyExtractor {

    private final String description;
    private final Function<Delivery, KeyExtractor.Lookup> lookup;

    public LookupExtractor(String description, Function<Delivery, KeyExtractor.Lookup> lookup) {
        this.description = description;
        this.lookup = lookup;
    }

    @Override
    public KeyExtractor.Lookup lookup(Delivery delivery) {
        KeyExtractor.Lookup result;
        try {
            result = lookup.apply(delivery);
        } catch (RuntimeException e) {
            return KeyExtractor.Lookup.missing("key extractor failed: " + e);
        }
        return result == null ? KeyExtractor.Lookup.missing("key extractor returned no lookup") : result;
    }

    @Override
    public Optional<String> extract(Delivery delivery) {
        return lookup(delivery).toOptional();
    }

    @Override
    public String toString() {
        return description;
    }
}
