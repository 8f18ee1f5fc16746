package io.github.once.cli.demo;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A trap row's consumer process: one connection, one channel, the style's code called per delivery. */
final class RawProcess extends ConsumerProcess {
    private static final Logger log = LoggerFactory.getLogger(RawProcess.class);

    private final Cell cell;
    private final TrapLogic logic;
    private final Connection connection;
    private final Channel channel;
    private final AtomicInteger working = new AtomicInteger();
    private final AtomicInteger received = new AtomicInteger();
    private final AtomicInteger settled = new AtomicInteger();
    private final CountDownLatch buried = new CountDownLatch(1);

    private RawProcess(Cell cell, String name, boolean first, TrapLogic logic) throws Exception {
        super(name, first);
        this.cell = cell;
        this.logic = logic;
        this.connection = cell.newConnection(name);
        this.channel = connection.createChannel();
    }

    static RawProcess start(Cell cell, String name, boolean first, TrapLogic logic, int prefetch) throws Exception {
        RawProcess p = new RawProcess(cell, name, first, logic);
        cell.register(p);
        p.channel.basicQos(prefetch);
        p.channel.basicConsume(cell.queue(), false, p.new Handler());
        return p;
    }

    Cell cell() {
        return cell;
    }

    Channel channel() {
        return channel;
    }

    void settled() {
        settled.incrementAndGet();
    }

    @Override
    Connection connection() {
        return connection;
    }

    @Override
    int working() {
        return working.get();
    }

    @Override
    int holding() {
        return partitioned() ? 0 : received.get() - settled.get();
    }

    @Override
    boolean holdsUnsettled() {
        return received.get() > settled.get();
    }

    @Override
    RuntimeException dieHere() {
        // A dead process does nothing more: the thread stays parked until the cell is torn down.
        try {
            buried.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        throw new ProcessDeath(name());
    }

    @Override
    public void close() {
        buried.countDown();
        if (connection.isOpen()) {
            connection.abort(2000);
        }
    }

    private final class Handler extends DefaultConsumer {
        Handler() {
            super(channel);
        }

        @Override
        public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties,
                byte[] body) {
            received.incrementAndGet();
            working.incrementAndGet();
            cell.delivered(body);
            try {
                logic.handle(new RawDelivery(RawProcess.this, envelope.getDeliveryTag(), properties, body));
            } catch (ProcessDeath e) {
                return; // its working count stays: a dead process is ignored anyway
            } catch (Exception e) {
                // What a consumer loop does with an exception its handler let through: log it and go on.
                log.debug("consumer {} of {}: {}", name(), cell.id(), e.toString());
            }
            working.decrementAndGet();
            cell.handlerReturned(RawProcess.this);
        }
    }
}
