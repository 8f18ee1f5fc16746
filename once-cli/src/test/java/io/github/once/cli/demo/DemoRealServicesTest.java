package io.github.once.cli.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.github.once.cli.Cli;
import io.github.once.cli.MiniJson;
import io.github.once.cli.Services;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code once demo} against the local RabbitMQ, Redis, PostgreSQL and MariaDB. */
class DemoRealServicesTest {

    @Test
    void rabbitMqRedisAndPostgresql() throws Exception {
        Cli run = Cli.run("demo", "--json", "--amqp-uri", Services.AMQP, "--redis-uri", Services.REDIS,
                "--jdbc-url", Services.POSTGRES);

        assertThat(run.exitCode()).as(run.toString()).isZero();
        Map<String, Object> json = MiniJson.object(run.out());
        assertThat((String) json.get("broker")).startsWith("RabbitMQ");
        MatrixAssertions.assertMatrix(json, List.of("ack-first", "no-guard", "check-then-lock-memory",
                "check-then-lock-redis", "once-in-memory", "once-h2", "once-h2-tx", "once-redis", "once-postgresql",
                "once-postgresql-tx"));
        String runId = (String) json.get("runId");
        assertNothingLeftBehind(runId, Services.POSTGRES);
    }

    @Test
    void rabbitMqAndMariadb() throws Exception {
        Cli run = Cli.run("demo", "--json", "--amqp-uri", Services.AMQP, "--jdbc-url", Services.MARIADB);

        assertThat(run.exitCode()).as(run.toString()).isZero();
        Map<String, Object> json = MiniJson.object(run.out());
        MatrixAssertions.assertMatrix(json, List.of("ack-first", "no-guard", "check-then-lock-memory",
                "once-in-memory", "once-h2", "once-h2-tx", "once-mariadb", "once-mariadb-tx"));
        assertNothingLeftBehind((String) json.get("runId"), Services.MARIADB);
    }

    private static void assertNothingLeftBehind(String runId, String jdbcUrl) throws Exception {
        ConnectionFactory f = new ConnectionFactory();
        f.setUri(Services.AMQP);
        try (Connection c = f.newConnection()) {
            for (int row = 0; row < 10; row++) {
                for (String scenario : MatrixAssertions.SCENARIOS) {
                    for (String suffix : List.of("", ".once.dlq")) {
                        String queue = "once-demo." + runId + ".r" + row + "." + scenario + suffix;
                        Channel ch = c.createChannel();
                        // A passive declare of a missing queue fails and closes the channel.
                        assertThatThrownBy(() -> ch.queueDeclarePassive(queue)).as(queue)
                                .isInstanceOf(IOException.class);
                    }
                }
            }
        }
        RedisClient client = RedisClient.create(Services.REDIS);
        try (StatefulRedisConnection<String, String> redis = client.connect()) {
            assertThat(redis.sync().keys("once-demo:{" + runId + ".*")).isEmpty();
            assertThat(redis.sync().keys("once-demo:" + runId + ":*")).isEmpty();
        } finally {
            client.shutdown();
        }
        try (java.sql.Connection c = DriverManager.getConnection(jdbcUrl);
                ResultSet rs = c.createStatement().executeQuery(
                        "SELECT COUNT(*) FROM once_demo_effect WHERE order_id LIKE '" + runId + ".%'")) {
            rs.next();
            assertThat(rs.getInt(1)).isZero();
        }
    }
}
