/**
 * Spring Boot auto-configuration for Once: the store from what the application has (its {@code DataSource}, its
 * {@code spring.data.redis.*} Redis, else in memory with a warning), {@code @RabbitListener} methods made
 * idempotent through {@link io.github.once.spring.rabbit.OnceAdvice}, {@code once.*} properties, a health
 * indicator for the store and once-micrometer's meters. Works on Spring Boot 4.0 and 3.5.
 */
package io.github.once.spring.boot;
