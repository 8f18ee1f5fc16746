/** The embedded broker behind the demo and quick starts; not a library API. */
package io.github.once.cli.embedded;
