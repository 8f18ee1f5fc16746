/** The {@code once} operations commands ({@code inspect}, {@code stats}, {@code purge}); not a library API. */
package io.github.once.cli.ops;
