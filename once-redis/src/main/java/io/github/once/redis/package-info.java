/** For users: the Redis store over Lettuce, {@link io.github.once.redis.RedisIdempotencyStore}; its scripts and connections are in the module's implementation package. */
package io.github.once.redis;
