package io.github.once.chaos;

import io.github.once.spring.rabbit.Once;
import io.github.once.spring.rabbit.OnceContext;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import javax.sql.DataSource;

import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;

/**
 * The spring-tx mode's consumer process: a Spring Boot application with one {@code @RabbitListener @Once
 * @Transactional} method, configured only through {@code once.*} and {@code spring.*} properties, as a team would.
 * Its effect is a row written on the listener's transaction, where the starter writes the record too.
 *
 * <pre>
 * java -cp CLASSPATH io.github.once.chaos.SpringWorker --queue Q --amqp 127.0.0.1:5701,... --worker w1
 *      --jdbc JDBC_URL --effects-table T [--lease-ms 5000] [--prefetch 20] [--handler-ms 2] [--halt-on ID]
 * </pre>
 * The retry levels and attempts are the harness's ({@link OnceWiring}); the harness declares the queues.
 */
@SpringBootApplication
@EnableTransactionManagement
public class SpringWorker {

    public static void main(String[] argv) throws Exception {
        ParentWatch.exitWithParent();
        Args args = Args.parse(argv);
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.main.banner-mode", "off");
        properties.put("spring.rabbitmq.addresses", args.get("amqp"));
        properties.put("spring.rabbitmq.listener.simple.prefetch", args.getInt("prefetch", 20));
        properties.put("once.store", "jdbc");
        properties.put("once.jdbc.table", OnceWiring.RECORD_TABLE);
        properties.put("once.jdbc.create-table", false);
        properties.put("once.lease", args.getLong("lease-ms", 5000) + "ms");
        properties.put("once.retry.max-attempts", OnceWiring.RETRY.maxAttempts());
        properties.put("once.retry.backoff", OnceWiring.backoffProperty());
        properties.put("once.rabbit.declare", "none");
        properties.put("chaos.queue", args.get("queue"));
        properties.put("chaos.jdbc", args.get("jdbc"));
        properties.put("chaos.worker", args.get("worker"));
        properties.put("chaos.table", args.get("effects-table"));
        properties.put("chaos.handler-ms", args.getLong("handler-ms", 0));
        properties.put("chaos.halt-on", args.get("halt-on", ""));

        SpringApplication app = new SpringApplication(SpringWorker.class);
        app.setDefaultProperties(properties);
        app.run();
        System.out.println("ready " + args.get("worker"));
        new CountDownLatch(1).await(); // until killed
    }

    /** The same pool as the other modes' consumers: it starts while the server is down and gives up quickly. */
    @Bean
    DataSource dataSource(@Value("${chaos.jdbc}") String url) {
        return Pools.postgres(url, "store", 4);
    }

    @Bean
    Effects effects(DataSource dataSource, @Value("${chaos.table}") String table,
                    @Value("${chaos.worker}") String worker, @Value("${chaos.handler-ms}") long handlerMillis,
                    @Value("${chaos.halt-on}") String haltOn) {
        return new Effects(dataSource, table, worker, handlerMillis, haltOn);
    }

    /** The listener. Public with public methods: Spring's transactional proxy wraps it. */
    public static class Effects {
        private final DataSource dataSource;
        private final String table;
        private final String worker;
        private final long handlerMillis;
        private final String haltOn;

        Effects(DataSource dataSource, String table, String worker, long handlerMillis, String haltOn) {
            this.dataSource = dataSource;
            this.table = table;
            this.worker = worker;
            this.handlerMillis = handlerMillis;
            this.haltOn = haltOn;
        }

        @RabbitListener(queues = "${chaos.queue}")
        @Once
        @Transactional
        public void handle(Message message) throws SQLException {
            String id = message.getMessageProperties().getMessageId();
            if (id.equals(haltOn)) {
                Runtime.getRuntime().halt(1);
            }
            if (handlerMillis > 0) {
                Pause.millis(handlerMillis);
            }
            // The transaction's connection, on which the starter claimed the record and will complete it.
            EffectLedger.record(DataSourceUtils.getConnection(dataSource), table, id, worker,
                    OnceContext.current().fencingToken());
        }
    }
}
