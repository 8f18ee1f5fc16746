/** How much heap the in-memory store takes per record; never published. */
package io.github.once.bench.memory;
