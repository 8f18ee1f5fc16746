package io.github.once.outbox;

import com.rabbitmq.client.ConnectionFactory;
import com.zaxxer.hikari.HikariDataSource;

import java.time.Duration;

/**
 * A relay in a process of its own, for the crash tests: {@code RelayMain <jdbcUrl> <user> <table> <name>
 * <leaseMillis>}. Its broker connection is named {@code once-outbox-relay-<name>} so the test can find and cut it.
 * It exits when its standard input closes, so it never outlives the test that started it.
 */
public final class RelayMain {

    private RelayMain() {
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        String user = args[1];
        String table = args[2];
        String name = args[3];
        Duration lease = Duration.ofMillis(Long.parseLong(args[4]));
        HikariDataSource ds = TestDatabase.pool(url, user, 3);
        ConnectionFactory factory = Broker.factory();
        com.rabbitmq.client.Connection connection = factory.newConnection(connectionName(name));
        OutboxRelay relay = OutboxRelay.builder(ds, connection).tableName(table).name(name).batchSize(100)
                .pollInterval(Duration.ofMillis(50)).lease(lease).confirmTimeout(lease.dividedBy(2))
                .build().start();
        System.out.println("READY " + name);
        System.out.flush();
        while (System.in.read() != -1) {
            // keep running until the test closes our input
        }
        relay.close();
        connection.abort();
        ds.close();
        System.exit(0);
    }

    static String connectionName(String relay) {
        return "once-outbox-relay-" + relay;
    }
}
