/** The {@code once} command; not a library API. */
package io.github.once.cli;
