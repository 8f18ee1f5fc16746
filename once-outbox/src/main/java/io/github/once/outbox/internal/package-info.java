/** Not an API: the outbox's table access, relay rounds and notifications. It is not exported. */
package io.github.once.outbox.internal;
