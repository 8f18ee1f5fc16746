/** Benchmarks of Once against the plain consumer and its peers; never published. */
package io.github.once.bench;
