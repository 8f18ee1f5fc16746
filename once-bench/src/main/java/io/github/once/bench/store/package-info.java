/** JMH store-level benchmarks against peer idempotent repositories; never published. */
package io.github.once.bench.store;
