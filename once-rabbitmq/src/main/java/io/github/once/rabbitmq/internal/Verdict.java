package io.github.once.rabbitmq.internal;

import io.github.once.IdempotencyKey;
import io.github.once.rabbitmq.container.Disposition;

/** A delivery and what was decided for it; {@code key} is null when it had none. */
public record Verdict(Inbound in, IdempotencyKey key, Disposition action) {
}
