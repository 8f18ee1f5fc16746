package io.github.once.rabbitmq.internal;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;

import io.github.once.Idempotency;
import io.github.once.rabbitmq.ConsumerConfig;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.RequestHandler;

import java.util.function.Function;

/** What an {@link OnceConsumer} hands to each of its channels: its parts, its settings, the resolved namespace. */
public record ConsumerSettings(
        Connection connection,
        String queue,
        Idempotency executor,
        RequestHandler handler,
        ConsumerConfig config,
        Function<Delivery, String> namespace) {
}
