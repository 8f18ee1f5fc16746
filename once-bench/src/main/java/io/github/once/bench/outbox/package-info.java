/** The relay benchmark of once-outbox; never published. */
package io.github.once.bench.outbox;
