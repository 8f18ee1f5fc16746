/** The end-to-end throughput and latency harness over RabbitMQ; never published. */
package io.github.once.bench.e2e;
