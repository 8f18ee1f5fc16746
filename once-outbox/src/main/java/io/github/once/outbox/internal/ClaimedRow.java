package io.github.once.outbox.internal;

import com.rabbitmq.client.AMQP;

import java.time.Duration;

/**
 * One outbox row a relay holds under its lease.
 *
 * @param ageAtClaim how long the row had existed when it was claimed, by the database's clock
 */
public record ClaimedRow(long id, String messageId, String exchange, String routingKey, AMQP.BasicProperties properties,
                  byte[] body, String aggregateKey, int attempts, Duration ageAtClaim) {
}
