package io.github.once.rabbitmq;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Delivery;

import io.github.once.IdempotentExecutor;

import java.time.Duration;
import java.util.function.Function;

/** The resolved settings an {@link OnceConsumer} hands to each of its channels. */
record ConsumerSettings(
        Connection connection,
        String queue,
        IdempotentExecutor executor,
        RequestHandler handler,
        Function<Delivery, String> namespace,
        KeyExtractor keys,
        int prefetch,
        int channels,
        boolean batchClaims,
        int maxBatch,
        RetryPolicy retry,
        Topology topology,
        Duration moveTimeout,
        Duration shutdownTimeout,
        Duration storeBackoff,
        Duration maxStoreBackoff,
        int maxErrorLength) {
}
