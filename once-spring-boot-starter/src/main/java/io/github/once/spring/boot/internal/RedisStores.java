package io.github.once.spring.boot.internal;

import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.spi.IdempotencyStore;
import io.github.once.spi.StoreInspector;
import io.github.once.spring.boot.OnceProperties;
import io.lettuce.core.RedisURI;

import java.time.Duration;

import org.springframework.core.env.Environment;

/**
 * once-redis's store on the Redis that {@code spring.data.redis.*} describes ({@code url}, or {@code host},
 * {@code port}, {@code database}, {@code username}, {@code password}, {@code ssl.enabled}, {@code timeout}),
 * read from the environment so the same code serves Boot 4.0 and 3.5, whose property classes differ.
 */
public final class RedisStores {
    private RedisStores() {
    }

    public static IdempotencyStore create(Environment env, OnceProperties.Redis redis) {
        RedisIdempotencyStore.Builder b = RedisIdempotencyStore.builder().redisUri(uri(env))
                .keyPrefix(redis.getKeyPrefix()).timeout(redis.getTimeout());
        String password = env.getProperty("spring.data.redis.password");
        if (password != null && env.getProperty("spring.data.redis.url") == null) {
            b.credentials(env.getProperty("spring.data.redis.username"), password.toCharArray());
        }
        return b.build();
    }

    /** Its inspector when {@code store} is once-redis's, else null. */
    static StoreInspector inspector(IdempotencyStore store) {
        return store instanceof RedisIdempotencyStore redis ? redis.inspector() : null;
    }

    static RedisURI uri(Environment env) {
        String url = env.getProperty("spring.data.redis.url");
        RedisURI uri;
        if (url != null && !url.isBlank()) {
            uri = RedisURI.create(url);
        } else {
            uri = RedisURI.builder()
                    .withHost(env.getProperty("spring.data.redis.host", "localhost"))
                    .withPort(env.getProperty("spring.data.redis.port", Integer.class, 6379))
                    .withDatabase(env.getProperty("spring.data.redis.database", Integer.class, 0))
                    .withSsl(env.getProperty("spring.data.redis.ssl.enabled", Boolean.class, false))
                    .build();
        }
        Duration timeout = env.getProperty("spring.data.redis.timeout", Duration.class);
        if (timeout != null) {
            uri.setTimeout(timeout);
        }
        return uri;
    }
}
