package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import java.util.Optional;
import java.util.function.Function;

/** A key extractor that gives reasons: the form of every built-in one, and of {@link KeyExtractor#of}. */
final class LookupExtractor implements KeyExtractor {

    private final String description;
    private final Function<Delivery, KeyLookup> lookup;

    LookupExtractor(String description, Function<Delivery, KeyLookup> lookup) {
        this.description = description;
        this.lookup = lookup;
    }

    @Override
    public KeyLookup lookup(Delivery delivery) {
        KeyLookup result;
        try {
            result = lookup.apply(delivery);
        } catch (RuntimeException e) {
            return KeyLookup.missing("key extractor failed: " + e);
        }
        return result == null ? KeyLookup.missing("key extractor returned no lookup") : result;
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
