/** The {@code once dlq} commands: list dead letters and move them back; not a library API. */
package io.github.once.cli.dlq;
