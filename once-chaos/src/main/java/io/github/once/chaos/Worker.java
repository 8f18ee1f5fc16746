package io.github.once.chaos;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DeliverCallback;

import io.github.once.Idempotency;
import io.github.once.rabbitmq.MessageHandler;
import io.github.once.rabbitmq.OnceConsumer;

import com.zaxxer.hikari.HikariDataSource;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * One consumer process. Its effect for each message is a row in the effects table: in the transactional modes on
 * the transaction's connection, otherwise in the machine's PostgreSQL in autocommit, which no fault touches.
 *
 * <pre>
 * java -cp CLASSPATH io.github.once.chaos.Worker --mode redis --queue Q --amqp 127.0.0.1:5701,...
 *      --worker w1 --effects-url JDBC_URL --effects-table T [--redis URI] [--jdbc JDBC_URL]
 *      [--lease-ms 5000] [--prefetch 20] [--handler-ms 2] [--halt-on ID] [--unsafe-ack-first]
 * </pre>
 * {@code --halt-on ID} halts the process (no shutdown hooks, as a crash) whenever that message reaches the
 * handler, for crash-loop tests. {@code --unsafe-ack-first} consumes with automatic acks and no Once at all: a
 * broken consumer, only there to show that the checker catches loss.
 */
public final class Worker {

    private Worker() {
    }

    public static void main(String[] argv) throws Exception {
        ParentWatch.exitWithParent();
        Args args = Args.parse(argv);
        Mode mode = Mode.of(args.get("mode"));
        String queue = args.get("queue");
        String worker = args.get("worker");
        String table = args.get("effects-table");
        long handlerMillis = args.getLong("handler-ms", 0);
        String haltOn = args.get("halt-on", "");
        Duration lease = Duration.ofMillis(args.getLong("lease-ms", 5000));

        Connection connection = Amqp.connect(Amqp.parse(args.get("amqp")), "once-chaos-" + worker, 120_000);
        boolean unsafe = args.flag("unsafe-ack-first");
        // Effects in autocommit (the transactional mode writes its own on the handler's transaction).
        HikariDataSource effects = !mode.transactional() || unsafe
                ? Pools.forUrl(args.get("effects-url"), "effects", 4) : null;

        if (unsafe) {
            consumeAckingFirst(connection, queue, effects, table, worker, handlerMillis);
        } else {
            HikariDataSource storeDb = mode.transactional() ? Pools.forUrl(args.get("jdbc"), "store", 4) : null;
            Idempotency executor = executor(mode, args, storeDb, lease);
            MessageHandler handler = (delivery, ctx) -> {
                String id = ctx.key().id();
                if (id.equals(haltOn)) {
                    Runtime.getRuntime().halt(1);
                }
                pause(handlerMillis);
                if (mode.transactional()) {
                    EffectLedger.record(ctx.resource(java.sql.Connection.class), table, id, worker, ctx.fencingToken());
                } else {
                    try (java.sql.Connection c = effects.getConnection()) {
                        EffectLedger.record(c, table, id, worker, ctx.fencingToken());
                    }
                }
            };
            OnceConsumer consumer = OnceWiring.consumer(connection, queue, executor, args.getInt("prefetch", 20), handler);
            consumer.start();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                consumer.close();
                executor.close();
            }));
        }
        System.out.println("ready " + worker);
        new CountDownLatch(1).await(); // until killed
    }

    private static Idempotency executor(Mode mode, Args args, HikariDataSource storeDb, Duration lease) {
        switch (mode) {
            case JDBC_TX:
            case MARIADB_TX:
            case OUTBOX_TX:
                return OnceWiring.jdbcTransactional(storeDb, mode, lease);
            case MEMORY:
                return OnceWiring.memory(lease);
            case TIERED:
                return OnceWiring.tiered(args.get("redis"), storeDb, lease);
            default:
                // A worker restarted while Redis is down waits for it, as a deployment would.
                long deadline = System.nanoTime() + 120_000_000_000L;
                while (true) {
                    try {
                        return OnceWiring.redis(args.get("redis"), lease);
                    } catch (RuntimeException e) {
                        if (System.nanoTime() > deadline) {
                            throw e;
                        }
                        Pause.millis(500);
                    }
                }
        }
    }

    private static void consumeAckingFirst(Connection connection, String queue, HikariDataSource effects,
                                           String table, String worker, long handlerMillis) throws Exception {
        Channel channel = connection.createChannel();
        DeliverCallback deliver = (tag, delivery) -> {
            pause(handlerMillis);
            try (java.sql.Connection c = effects.getConnection()) {
                EffectLedger.record(c, table, delivery.getProperties().getMessageId(), worker, 0);
            } catch (java.sql.SQLException e) {
                throw new java.io.IOException(e);
            }
        };
        channel.basicConsume(queue, true, deliver, tag -> { });
    }

    private static void pause(long millis) {
        if (millis > 0) {
            Pause.millis(millis);
        }
    }
}
