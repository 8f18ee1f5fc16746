/**
 * The chaos harness: consumer processes killed for real, a RabbitMQ cluster that restarts and fails over, stores
 * that restart and lose data, and a checker of every message's effects. Not an API; never published.
 */
package io.github.once.chaos;
