package io.github.once.bench.e2e;

import com.rabbitmq.client.Connection;

/** A consumer running one variant's way over a filled queue; closing it stops consuming and frees its resources. */
interface Consumption extends AutoCloseable {

    /** Stops consuming and frees what the variant opened; failures here would hide the run's result. */
    @Override
    void close();

    /** Starts one variant's consumer on a queue, reporting every delivery and ack to the meter. */
    @FunctionalInterface
    interface Starter {
        Consumption start(Connection connection, String queue, int prefetch, Meter meter) throws Exception;
    }
}
