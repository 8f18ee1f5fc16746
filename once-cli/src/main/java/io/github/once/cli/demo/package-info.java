/** The {@code once demo} trap matrix; not a library API. */
package io.github.once.cli.demo;
