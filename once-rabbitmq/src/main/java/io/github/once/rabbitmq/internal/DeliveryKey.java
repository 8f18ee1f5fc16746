package io.github.once.rabbitmq.internal;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.DeadLetterReason;
import io.github.once.rabbitmq.OnceHeaders;

/** A delivery's idempotency key, found once per delivery, or why it has none. */
public sealed interface DeliveryKey {

    /** The key, or null when there is none. */
    IdempotencyKey keyOrNull();

    record Keyed(IdempotencyKey key) implements DeliveryKey {
        @Override
        public IdempotencyKey keyOrNull() {
            return key;
        }
    }

    /**
     * No key: {@link DeadLetterReason#MISSING_KEY} or {@link DeadLetterReason#INVALID_KEY}, and why, such as
     * {@code body field order_id is null} (the dead-lettered copy carries it as {@link OnceHeaders#DETAIL}).
     */
    record Keyless(DeadLetterReason reason, String detail) implements DeliveryKey {
        @Override
        public IdempotencyKey keyOrNull() {
            return null;
        }
    }
}
