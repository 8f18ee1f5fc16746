/**
 * An example, never published: an order consumer whose every sub-operation has its own key (stock per item, the
 * payment, the notification), the order's status moved with {@link io.github.once.jdbc.StateMachine}, on a
 * {@link io.github.once.tiered.TieredIdempotencyStore} (Redis in front of PostgreSQL). See the module's README.
 */
package io.github.once.examples.orderflow;
