/** For users: the Redis store over Lettuce ({@link io.github.once.redis.RedisIdempotencyStore}); everything else here is package-private. */
package io.github.once.redis;
