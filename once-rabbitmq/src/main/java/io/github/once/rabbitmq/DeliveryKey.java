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

    /** No key: {@link DeadLetterReason#MISSING_KEY} or {@link DeadLetterReason#INVALID_KEY}. */
    record Keyless(DeadLetterReason reason) implements DeliveryKey {
        @Override
        public IdempotencyKey keyOrNull() {
            return null;
        }
    }
}
