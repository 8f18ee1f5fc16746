package io.github.once.rabbitmq.internal;

import io.github.once.rabbitmq.container.Disposition;

/**
 * A delivery taken in hand: its attempt and its key, found once; {@code early} an action decided without running
 * it (redelivered too often), else null.
 */
public record Admitted(Inbound in, int attempt, DeliveryKey key, Disposition early) {
}
