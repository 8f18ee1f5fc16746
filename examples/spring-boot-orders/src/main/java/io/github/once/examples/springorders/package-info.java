/**
 * A Spring Boot application made idempotent by Once: {@link io.github.once.examples.springorders.OrderListener}
 * takes each order's payment and stores the order once, however often RabbitMQ delivers the order message.
 */
package io.github.once.examples.springorders;
