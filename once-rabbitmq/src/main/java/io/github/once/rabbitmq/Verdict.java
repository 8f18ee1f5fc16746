package io.github.once.rabbitmq;

import io.github.once.IdempotencyKey;

/** A delivery and what was decided for it; {@code key} is null when it had none. */
record Verdict(Inbound in, IdempotencyKey key, Disposition.Action action) {
}
