package io.github.once.bench.store;

import io.lettuce.core.RedisURI;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Spring Data Redis over Lettuce, as the Spring-based peers are wired in a Spring application. */
final class SpringRedis implements AutoCloseable {

    final LettuceConnectionFactory factory;
    final StringRedisTemplate template;

    SpringRedis(String redisUri) {
        RedisURI uri = RedisURI.create(redisUri);
        RedisStandaloneConfiguration config = new RedisStandaloneConfiguration(uri.getHost(), uri.getPort());
        factory = new LettuceConnectionFactory(config);
        factory.afterPropertiesSet();
        factory.start();
        template = new StringRedisTemplate(factory);
        template.afterPropertiesSet();
    }

    @Override
    public void close() {
        factory.destroy();
    }
}
