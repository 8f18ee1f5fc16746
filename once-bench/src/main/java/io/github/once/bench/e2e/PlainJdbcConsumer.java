package io.github.once.bench.e2e;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.zaxxer.hikari.HikariDataSource;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The fair baselines of the transactional mode: a manual-ack consumer with no guard that writes the same row per
 * delivery as the JDBC variants ({@link EffectRows}). {@code perTransaction} 1: each row auto-committed, then its
 * ack. Larger: one statement per delivery, {@code perTransaction} deliveries per transaction, then one multiple
 * ack; what is pending when deliveries stop coming is committed within 20 ms.
 */
final class PlainJdbcConsumer implements Consumption {
    private static final long FLUSH_MILLIS = 20;

    private final Channel channel;
    private final HikariDataSource dataSource;
    private final Connection connection;
    private final ScheduledExecutorService flusher;
    private final String namespace;

    private PlainJdbcConsumer(Channel channel, HikariDataSource dataSource, Connection connection,
                              ScheduledExecutorService flusher, String namespace) {
        this.channel = channel;
        this.dataSource = dataSource;
        this.connection = connection;
        this.flusher = flusher;
        this.namespace = namespace;
    }

    static Consumption start(Variant.Run run, int perTransaction) throws Exception {
        HikariDataSource dataSource = run.services().dataSource("plain-jdbc");
        EffectRows.create(dataSource);
        Connection connection = dataSource.getConnection();
        connection.setAutoCommit(perTransaction == 1);
        Channel channel = run.connection().createChannel();
        channel.basicQos(run.prefetch());
        Meter meter = run.meter();
        long[] deliveredAt = new long[meter.capacity()];
        Batch batch = new Batch(channel, connection, meter, deliveredAt, perTransaction);
        ScheduledExecutorService flusher = null;
        if (perTransaction > 1) {
            flusher = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "plain-jdbc-flush");
                t.setDaemon(true);
                return t;
            });
            flusher.scheduleWithFixedDelay(batch::flushIfIdle, FLUSH_MILLIS, FLUSH_MILLIS, TimeUnit.MILLISECONDS);
        }
        String namespace = run.namespace();
        channel.basicConsume(run.queue(), false, new DefaultConsumer(channel) {
            @Override
            public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
                                       byte[] body) throws IOException {
                int index = Integer.parseInt(properties.getMessageId());
                deliveredAt[index] = meter.delivered(index);
                batch.add(envelope.getDeliveryTag(), index, namespace, properties.getMessageId(), body.length);
            }
        });
        return new PlainJdbcConsumer(channel, dataSource, connection, flusher, namespace);
    }

    /** The deliveries written and not yet committed and acked; one thread at a time. */
    private static final class Batch {
        private final Channel channel;
        private final Connection connection;
        private final Meter meter;
        private final long[] deliveredAt;
        private final int[] pending;
        private int size;
        private long lastTag;
        private long lastAdded;

        Batch(Channel channel, Connection connection, Meter meter, long[] deliveredAt, int perTransaction) {
            this.channel = channel;
            this.connection = connection;
            this.meter = meter;
            this.deliveredAt = deliveredAt;
            this.pending = new int[perTransaction];
        }

        synchronized void add(long tag, int index, String namespace, String messageId, int bodyBytes)
                throws IOException {
            try {
                EffectRows.insert(connection, namespace, messageId, bodyBytes);
            } catch (SQLException e) {
                meter.fail("plain-jdbc insert failed: " + e);
                return;
            }
            meter.effect();
            pending[size++] = index;
            lastTag = tag;
            lastAdded = System.nanoTime();
            if (size == pending.length) {
                flush();
            }
        }

        synchronized void flushIfIdle() {
            if (size > 0 && System.nanoTime() - lastAdded >= TimeUnit.MILLISECONDS.toNanos(FLUSH_MILLIS)) {
                try {
                    flush();
                } catch (IOException e) {
                    meter.fail("plain-jdbc ack failed: " + e);
                }
            }
        }

        private void flush() throws IOException {
            if (pending.length > 1) {
                try {
                    connection.commit();
                } catch (SQLException e) {
                    meter.fail("plain-jdbc commit failed: " + e);
                    return;
                }
            }
            channel.basicAck(lastTag, pending.length > 1);
            for (int i = 0; i < size; i++) {
                meter.acked(deliveredAt[pending[i]]);
            }
            size = 0;
        }
    }

    @Override
    public void close() {
        try {
            if (flusher != null) {
                flusher.shutdownNow();
            }
            if (channel.isOpen()) {
                channel.close();
            }
            connection.close();
            EffectRows.delete(dataSource, namespace);
        } catch (Exception e) {
            throw new IllegalStateException("could not close the plain JDBC consumer", e);
        } finally {
            dataSource.close();
        }
    }
}
