package io.github.once.rabbitmq;

/**
 * A delivery taken in hand: its attempt and its key, found once; {@code early} an action decided without running
 * it (redelivered too often), else null.
 */
record Admitted(Inbound in, int attempt, DeliveryKey key, Disposition.Action early) {
}
