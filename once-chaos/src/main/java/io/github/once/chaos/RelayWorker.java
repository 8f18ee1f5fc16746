package io.github.once.chaos;

import com.rabbitmq.client.Connection;

import io.github.once.outbox.OutboxRelay;

import com.zaxxer.hikari.HikariDataSource;

import java.util.concurrent.CountDownLatch;

/**
 * The outbox-tx mode's relay process: an {@link OutboxRelay} on the private PostgreSQL (through the stall proxy)
 * publishing to the cluster, SIGKILLed and cut off by the faults like the consumers.
 *
 * <pre>
 * java -cp CLASSPATH io.github.once.chaos.RelayWorker --jdbc JDBC_URL --outbox-table O --amqp 127.0.0.1:5701,...
 *      --worker r1.1
 * </pre>
 */
public final class RelayWorker {

    private RelayWorker() {
    }

    public static void main(String[] argv) throws Exception {
        ParentWatch.exitWithParent();
        Args args = Args.parse(argv);
        String name = args.get("worker");
        HikariDataSource db = Pools.postgres(args.get("jdbc"), "relay", 3);
        Connection connection = Amqp.connect(Amqp.parse(args.get("amqp")), "once-chaos-" + name, 120_000);
        OutboxRelay relay = OnceWiring.relay(db, connection, args.get("outbox-table"), name).start();
        Runtime.getRuntime().addShutdownHook(new Thread(relay::close));
        System.out.println("ready " + name);
        new CountDownLatch(1).await(); // until killed
    }
}
