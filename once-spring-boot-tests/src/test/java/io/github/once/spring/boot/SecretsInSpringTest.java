package io.github.once.spring.boot;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No password from a {@code spring.*} property reaches Once's health details, a failed start's errors or anything
 * printed: an application whose RabbitMQ, Redis and database all carry recognisable passwords and are all down (ports
 * where nothing listens) starts, reports its store DOWN, and fails its start with {@code once.fail-fast=true}; the
 * health details, every message of the start failure's causes and everything printed meanwhile name the store's
 * address and none of the passwords.
 */
@ExtendWith(OutputCaptureExtension.class)
class SecretsInSpringTest {
    private static final String AMQP_SECRET = "amqp-s3cret-5d1f";
    private static final String REDIS_SECRET = "redis-s3cret-8a2c";
    private static final String JDBC_SECRET = "jdbc-s3cret-07be";

    @Test
    void redisStoreHealthAndFailedStartNameNoPassword(CapturedOutput output) {
        int redisPort = Scenarios.portWithNothingListening();
        List<String> properties = properties("redis", "spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=" + redisPort, "spring.data.redis.password=" + REDIS_SECRET,
                "once.redis.timeout=300ms");
        assertNoSecretAnywhere(properties, "127.0.0.1:" + redisPort, output);
    }

    @Test
    void jdbcStoreHealthAndFailedStartNameNoPassword(CapturedOutput output) {
        int dbPort = Scenarios.portWithNothingListening();
        List<String> properties = properties("jdbc",
                "spring.datasource.url=jdbc:postgresql://127.0.0.1:" + dbPort + "/test?password=" + JDBC_SECRET,
                "spring.datasource.password=" + JDBC_SECRET, "spring.datasource.hikari.connection-timeout=500",
                "spring.datasource.hikari.initialization-fail-timeout=-1");
        assertNoSecretAnywhere(properties, "JdbcIdempotencyStore", output);
    }

    private static void assertNoSecretAnywhere(List<String> properties, String storeNamed, CapturedOutput output) {
        StringBuilder seen = new StringBuilder();
        runner(properties).run(context -> {
            assertThat(context).hasNotFailed();
            // The health component, read as the endpoint reads it (its type differs between Boot lines).
            Object indicator = context.getBean("onceHealthIndicator");
            Object health = indicator.getClass().getMethod("health").invoke(indicator);
            Object status = health.getClass().getMethod("getStatus").invoke(health);
            assertThat(status.getClass().getMethod("getCode").invoke(status)).isEqualTo("DOWN");
            seen.append(health.getClass().getMethod("getDetails").invoke(health)).append('\n');
        });
        List<String> failFast = new ArrayList<>(properties);
        failFast.add("once.fail-fast=true");
        runner(failFast).run(context -> {
            assertThat(context).hasFailed();
            for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                seen.append(t).append('\n');
            }
        });
        seen.append(output.getAll());
        assertThat(seen.toString()).as("health details, start failures and output")
                .contains(storeNamed)
                .doesNotContain(AMQP_SECRET).doesNotContain(REDIS_SECRET).doesNotContain(JDBC_SECRET);
    }

    /** The scenario application, its broker down too, with passwords on every link. */
    private static List<String> properties(String store, String... more) {
        List<String> properties = new ArrayList<>(List.of("once.store=" + store,
                "spring.rabbitmq.host=127.0.0.1", "spring.rabbitmq.port=" + Scenarios.portWithNothingListening(),
                "spring.rabbitmq.username=once", "spring.rabbitmq.password=" + AMQP_SECRET,
                "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test", "spring.datasource.username=postgres",
                "spring.rabbitmq.listener.simple.auto-startup=false",
                "spring.rabbitmq.listener.direct.auto-startup=false"));
        properties.addAll(List.of(more));
        for (String q : Scenarios.QUEUES) {
            properties.add("scenario." + q + "=" + Scenarios.queueName("secrets-" + q));
        }
        return properties;
    }

    private static ApplicationContextRunner runner(List<String> properties) {
        return new ApplicationContextRunner().withUserConfiguration(ScenarioApp.class)
                .withPropertyValues(properties.toArray(String[]::new));
    }
}
