package io.github.once.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

import java.util.Objects;

/**
 * Where the local services are. Every variant and every rival of a run talks to the same ones. Defaults are the
 * project's local services; each can be changed with a system property ({@code -Donce.bench.redis=...}).
 *
 * @param amqpUri      RabbitMQ, as an AMQP URI
 * @param redisUri     Redis, as a Lettuce URI
 * @param jdbcUrl      PostgreSQL
 * @param jdbcUser     PostgreSQL user
 * @param jdbcPoolSize connections in each JDBC pool (the same for Once and the peers)
 */
public record Services(String amqpUri, String redisUri, String jdbcUrl, String jdbcUser, int jdbcPoolSize) {

    public Services {
        Objects.requireNonNull(amqpUri, "amqpUri");
        Objects.requireNonNull(redisUri, "redisUri");
        Objects.requireNonNull(jdbcUrl, "jdbcUrl");
        Objects.requireNonNull(jdbcUser, "jdbcUser");
        if (jdbcPoolSize < 1) {
            throw new IllegalArgumentException("jdbcPoolSize must be at least 1, but was " + jdbcPoolSize);
        }
    }

    public static Services local() {
        return new Services(
                System.getProperty("once.bench.amqp", "amqp://guest:guest@127.0.0.1:5672/%2F"),
                System.getProperty("once.bench.redis", "redis://127.0.0.1:6379"),
                System.getProperty("once.bench.jdbc", "jdbc:postgresql://127.0.0.1:5432/test"),
                System.getProperty("once.bench.jdbc.user", "postgres"),
                Integer.getInteger("once.bench.jdbc.pool", 4));
    }

    /** A pool over PostgreSQL; every JDBC variant and rival gets one of the same size. */
    public HikariDataSource dataSource(String name) {
        HikariConfig config = new HikariConfig();
        config.setPoolName(name);
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(jdbcUser);
        config.setMaximumPoolSize(jdbcPoolSize);
        config.setMinimumIdle(jdbcPoolSize);
        return new HikariDataSource(config);
    }
}
