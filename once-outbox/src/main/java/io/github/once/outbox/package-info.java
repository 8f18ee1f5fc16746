/**
 * The transactional outbox: {@link io.github.once.outbox.Outbox} writes messages in the application's database
 * transaction, {@link io.github.once.outbox.OutboxRelay} publishes committed rows with publisher confirms and
 * stable message IDs, {@link io.github.once.outbox.OutboxPurger} deletes old sent rows. With a Once consumer at
 * the other end, a database change and the effects of its message happen once each.
 */
package io.github.once.outbox;
