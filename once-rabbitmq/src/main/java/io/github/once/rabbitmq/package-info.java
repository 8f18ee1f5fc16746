/** For users: the RabbitMQ adapter over amqp-client: the consumer, the publisher, key extraction, retry and dead-letter topology. */
package io.github.once.rabbitmq;
