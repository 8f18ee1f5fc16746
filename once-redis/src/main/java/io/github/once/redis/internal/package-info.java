/** Not an API: the implementation of once-redis. It is not exported; nothing outside the module uses it. */
package io.github.once.redis.internal;
