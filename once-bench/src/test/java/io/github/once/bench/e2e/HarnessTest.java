package io.github.once.bench.e2e;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;

import io.github.once.bench.Services;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** A test of the end-to-end harness on the local services: one publishing connection for the class's runs. */
abstract class HarnessTest {

    private static Services services;
    private static ConnectionFactory factory;
    private static Connection publishing;

    @BeforeAll
    static void connect() throws Exception {
        services = Services.local();
        factory = new ConnectionFactory();
        factory.setUri(services.amqpUri());
        publishing = factory.newConnection("once-bench-test-publisher");
    }

    @AfterAll
    static void disconnect() throws Exception {
        publishing.close();
    }

    /** One run of {@code variant} over {@code messages} messages of 64 bytes, as the harness runs it. */
    static RunResult run(EndToEndBenchmark harness, Variant variant, int messages) throws Exception {
        return harness.run(variant, 0, messages, services, factory, new QueueFiller(publishing, 64));
    }
}
