package io.github.once.rabbitmq;

import io.github.once.IdempotencyKey;

/** A delivery's idempotency key, found once per delivery, or why it has none. */
sealed interface DeliveryKey {

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
