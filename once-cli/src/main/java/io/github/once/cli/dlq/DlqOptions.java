package io.github.once.cli.dlq;

import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Which dead-letter queue a {@code once dlq} command works on, and how much of it. */
public final class DlqOptions {

    @Parameters(index = "0", paramLabel = "QUEUE",
            description = "The work queue; its dead-letter queue is QUEUE.once.dlq.")
    String queue;

    @Option(names = "--amqp-uri", paramLabel = "URI", defaultValue = "amqp://guest:guest@127.0.0.1:5672",
            description = "The broker (default ${DEFAULT-VALUE}, RabbitMQ on this machine).")
    String amqpUri;

    @Option(names = "--max", paramLabel = "N", defaultValue = "100",
            description = "Read at most the first N dead letters (default ${DEFAULT-VALUE}).")
    int max;

    @Option(names = "--json", description = "Print JSON.")
    boolean json;
}
