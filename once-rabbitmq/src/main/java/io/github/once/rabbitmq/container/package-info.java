/**
 * For authors of listener containers Once does not run itself (once-spring-rabbit uses it for Spring AMQP): the
 * consumer's decisions ({@link io.github.once.rabbitmq.container.ContainerPolicy}) and what becomes of a delivery
 * ({@link io.github.once.rabbitmq.container.Disposition}), so a container acks, moves and pauses as OnceConsumer does.
 */
package io.github.once.rabbitmq.container;
