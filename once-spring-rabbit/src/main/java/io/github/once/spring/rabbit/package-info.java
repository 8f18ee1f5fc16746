/**
 * Once for Spring AMQP: {@link io.github.once.spring.rabbit.OnceAdvice} runs around the listener invocation of
 * Spring AMQP's listener containers, so that a {@code @RabbitListener} method marked {@link
 * io.github.once.spring.rabbit.Once} (or every listener of a container factory) has its effect once per message.
 */
package io.github.once.spring.rabbit;
