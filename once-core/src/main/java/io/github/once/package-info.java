/** For users: keys, the executor {@link io.github.once.Idempotency}, its configuration, outcomes, codecs, listeners and the in-memory store. */
package io.github.once;
