package io.github.once.spi;

import io.github.once.IdempotencyKey;
import io.github.once.internal.Durations;

import java.time.Duration;
import java.util.Objects;

/**
 * A completed record to write as it is, where the store holds no live record of its key: a copy of another
 * store's record, as {@link io.github.once.TieredIdempotencyStore} keeps in its front.
 *
 * @param key       the key to write it under
 * @param result    its result (null for none)
 * @param retention how long it is kept from the moment it is written
 */
public record RecordCopy(IdempotencyKey key, byte[] result, Duration retention) {
    public RecordCopy {
        Objects.requireNonNull(key, "key");
        Durations.requirePositive(retention, "retention");
    }
}
