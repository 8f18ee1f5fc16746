/** Not an API: the advice's store watch, pauses, moves, replies and transactions. It is not exported. */
package io.github.once.spring.rabbit.internal;
