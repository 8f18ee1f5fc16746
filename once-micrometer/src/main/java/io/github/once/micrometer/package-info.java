/** For users: Micrometer meters for the executor and the consumer ({@link io.github.once.micrometer.OnceMeters}). */
package io.github.once.micrometer;
