package io.github.once.cli.demo;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one cell: a fresh queue, the first consumer, the scenario's messages, the fault, the second consumer when
 * the scenario has one, then waits until nothing more can happen and counts effects against the ledger.
 */
final class CellRunner {

    /** A trap consumer that requeued a failure this often is looping: it would go on for ever. */
    static final int LOOP_LIMIT = 50;
    private static final long POLL_MS = 40;
    private static final long QUIET_MS = 300;
    private static final long STUCK_MS = 700;
    private static final long CELL_LIMIT_MS = 15_000;

    private final ConnectionFactory amqp;
    private final Connection control;

    CellRunner(ConnectionFactory amqp, Connection control) {
        this.amqp = amqp;
        this.control = control;
    }

    CellResult run(ConsumerStyle style, Scenario scenario, String cellId) throws Exception {
        long started = System.nanoTime();
        String queue = "once-demo." + cellId;
        AtomicInteger threadNo = new AtomicInteger();
        ExecutorService threads = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "once-demo-" + cellId + "-" + threadNo.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        Cell cell = new Cell(cellId, scenario, queue, amqp, threads, style.effects(cellId));
        Channel channel = control.createChannel();
        try {
            channel.queueDeclare(queue, true, false, false, null);
            style.start(cell, "A", true);
            String orderId = cellId + "-o1";
            publish(channel, scenario, queue, cellId + "-m1", orderId);
            if (scenario.needsSecondConsumer()) {
                startSecond(style, cell);
            }
            CellResult.Ending ending = awaitEnd(cell, channel, style);
            return result(style, cell, channel, scenario, orderId, ending, started);
        } finally {
            for (ConsumerProcess p : cell.processes()) {
                p.close();
            }
            deleteQueues(style, queue);
            closeQuietly(channel);
            threads.shutdownNow();
        }
    }

    private static void publish(Channel channel, Scenario scenario, String queue, String messageId, String orderId)
            throws Exception {
        AMQP.BasicProperties.Builder props = new AMQP.BasicProperties.Builder().deliveryMode(2)
                .contentType("application/json");
        if (scenario != Scenario.MISSING_ID) {
            props.messageId(messageId);
        }
        channel.confirmSelect();
        int copies = scenario == Scenario.PRODUCER_RESEND ? 2 : 1;
        for (int i = 0; i < copies; i++) {
            // The re-send carries the same message_id and body, as a producer retrying after a timeout does.
            channel.basicPublish("", queue, true,
                    props.build(), Order.body(orderId));
        }
        channel.waitForConfirmsOrDie(10_000);
    }

    private static void startSecond(ConsumerStyle style, Cell cell) throws Exception {
        cell.awaitFault(10_000);
        if (cell.scenario() == Scenario.ACK_LOST) {
            // The replacement comes up once the first consumer finished with its delivery.
            ConsumerProcess first = cell.processes().get(0);
            long until = System.currentTimeMillis() + 10_000;
            while (first.working() > 0 && System.currentTimeMillis() < until) {
                Thread.sleep(POLL_MS);
            }
        }
        style.start(cell, "B", false);
    }

    private CellResult.Ending awaitEnd(Cell cell, Channel channel, ConsumerStyle style) throws Exception {
        long limit = System.currentTimeMillis() + CELL_LIMIT_MS;
        long quietSince = -1;
        int lastDeliveries = -1;
        List<String> watched = new ArrayList<>();
        watched.add(cell.queue());
        watched.addAll(style.retryQueues(cell.queue()));
        while (System.currentTimeMillis() < limit) {
            if (cell.count(CellEvent.NACK_REQUEUE) >= LOOP_LIMIT) {
                return CellResult.Ending.LOOPING;
            }
            boolean working = false;
            int held = 0;
            for (ConsumerProcess p : cell.processes()) {
                if (!p.dead()) {
                    working |= p.working() > 0;
                    held += p.holding();
                }
            }
            long ready = 0;
            for (String q : watched) {
                ready += channel.queueDeclarePassive(q).getMessageCount();
            }
            int deliveries = cell.totalDeliveries();
            // Some brokers count unacked messages in declare-ok (Qpid does, RabbitMQ does not): a queue holding no
            // more than what sits unacked has nothing left to deliver.
            boolean quiet = !working && ready <= held && deliveries == lastDeliveries;
            lastDeliveries = deliveries;
            long now = System.currentTimeMillis();
            if (!quiet) {
                quietSince = -1;
            } else if (quietSince < 0) {
                quietSince = now;
            } else if (now - quietSince >= (held > 0 ? STUCK_MS : QUIET_MS)) {
                return held > 0 ? CellResult.Ending.STUCK : CellResult.Ending.SETTLED;
            }
            Thread.sleep(POLL_MS);
        }
        return CellResult.Ending.TIMED_OUT;
    }

    private static CellResult result(ConsumerStyle style, Cell cell, Channel channel, Scenario scenario,
            String orderId, CellResult.Ending ending, long started) throws IOException {
        int effects = cell.effects().count(orderId);
        String dlq = style.deadLetterQueue(cell.queue());
        int deadLettered = dlq == null ? 0 : channel.queueDeclarePassive(dlq).getMessageCount();
        int duplicates = Math.max(0, effects - 1);
        int lost = effects == 0 && deadLettered == 0 ? 1 : 0;
        List<Trap> traps = new ArrayList<>();
        if (!style.once()) {
            if (duplicates > 0) {
                traps.add(style.duplicateTrap());
            }
            if (lost > 0) {
                if (ending == CellResult.Ending.LOOPING) {
                    traps.add(Trap.RETRY_LOOP);
                } else if (cell.count(CellEvent.LEFT_UNACKED) > 0) {
                    traps.add(Trap.LOCKED_LEFT_UNACKED);
                } else if (cell.count(CellEvent.DROPPED_MISSING_ID) > 0) {
                    traps.add(Trap.MISSING_ID_DROPPED);
                } else if (cell.count(CellEvent.ACKED_BEFORE_WORK) > 0) {
                    traps.add(Trap.ACK_BEFORE_PROCESSING);
                }
            }
        }
        int expected = scenario == Scenario.POISON ? 0 : 1;
        return new CellResult(scenario, expected, effects, duplicates, lost, deadLettered, cell.totalDeliveries(),
                ending, List.copyOf(traps), (System.nanoTime() - started) / 1_000_000, null);
    }

    private void deleteQueues(ConsumerStyle style, String queue) {
        List<String> all = new ArrayList<>();
        all.add(queue);
        all.addAll(style.retryQueues(queue));
        String dlq = style.deadLetterQueue(queue);
        if (dlq != null) {
            all.add(dlq);
        }
        try {
            Channel ch = control.createChannel();
            try {
                for (String q : all) {
                    ch.queueDelete(q);
                }
            } finally {
                closeQuietly(ch);
            }
        } catch (IOException | RuntimeException e) {
            // a queue left behind by the demo is named once-demo.* and holds nothing of value
        }
    }

    private static void closeQuietly(Channel channel) {
        try {
            if (channel.isOpen()) {
                channel.close();
            }
        } catch (Exception e) {
            // already closed by a refused declaration
        }
    }

    static void awaitTermination(ExecutorService pool) throws InterruptedException {
        pool.shutdown();
        pool.awaitTermination(1, TimeUnit.MINUTES);
    }
}
