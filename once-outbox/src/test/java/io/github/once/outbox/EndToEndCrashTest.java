package io.github.once.outbox;

import io.github.once.rabbitmq.OutboundMessage;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static io.github.once.outbox.OutboxWriteTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Database to RabbitMQ to a Once consumer, with the relays in processes of their own that are SIGKILLed mid-batch
 * and cut off from the broker while 10,000 messages are written: every committed message arrives (duplicates
 * allowed, under the same message ID), and the consumer, in JDBC transactional mode, takes each effect exactly
 * once.
 */
class EndToEndCrashTest {
    private static final Logger log = LoggerFactory.getLogger(EndToEndCrashTest.class);
    private static final int MESSAGES = 10_000;
    private static final int PER_TRANSACTION = 25;

    @Test
    void killedAndCutOffRelaysLoseNothingAndTheConsumerTakesEachEffectOnce() throws Exception {
        try (TestDatabase db = new TestDatabase(TestDatabase.Kind.POSTGRESQL); Broker broker = new Broker()) {
            String queue = broker.queue();
            try (DownstreamConsumer consumer = new DownstreamConsumer(broker.connect("once-outbox-test-consumer"), queue);
                 RelayProcesses relays = new RelayProcesses(db.url, db.kind.user, db.table, Duration.ofSeconds(3))) {
                for (String name : List.of("r1", "r2", "r3")) {
                    relays.start(name);
                }
                // Writing starts with the relays' JVMs, so they meet a backlog and every fault hits relays in the
                // middle of a round (claimed, publishing, or settling).
                CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> writeAll(db, queue));

                // Faults keyed to progress, not to the clock, so each lands while rows are still being written and
                // relayed. Cuts run beside the test (rabbitmqctl takes seconds to start) so the kills keep pace.
                int[] thresholds = {1_000, 2_500, 4_000, 5_500, 7_000};
                List<CompletableFuture<Integer>> cuts = new ArrayList<>();
                int next = 4;
                long heldByKilled = 0;
                for (int round = 0; round < thresholds.length; round++) {
                    long target = thresholds[round];
                    await().atMost(Duration.ofSeconds(60)).conditionEvaluationListener(c -> progress(db, consumer))
                            .until(() -> db.count("state = 'SENT'") >= target);
                    List<String> live = relays.names();
                    if (round % 2 == 0) {
                        // A relay holds leased rows only for the moment of a round: poll fast, and take as the victim
                        // whichever live relay is caught holding some, so the kill lands mid-batch.
                        String[] caught = new String[1];
                        await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO)
                                .pollInterval(Duration.ofMillis(2)).until(() -> {
                                    for (String name : live) {
                                        if (db.count(leasedBy(name)) > 0) {
                                            caught[0] = name;
                                            return true;
                                        }
                                    }
                                    return false;
                                });
                        String victim = caught[0];
                        String leasedByVictim = leasedBy(victim);
                        relays.kill(victim);
                        long held = db.count(leasedByVictim);
                        heldByKilled += held;
                        log.info("Killed relay {} at {} sent rows, holding {} rows under its lease", victim, target, held);
                        relays.start("r" + next++);
                    } else {
                        // A relay started a moment ago may not have connected yet: cut the first live relay that
                        // has a connection to cut.
                        log.info("Cutting the broker connection of a live relay at {} sent rows", target);
                        cuts.add(CompletableFuture.supplyAsync(() -> {
                            int[] cut = new int[1];
                            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100)).until(() -> {
                                for (String name : live) {
                                    cut[0] = relays.cutBrokerConnectionsQuietly(name);
                                    if (cut[0] > 0) {
                                        return true;
                                    }
                                }
                                return false;
                            });
                            return cut[0];
                        }));
                    }
                }
                writer.join();
                assertThat(cuts).allSatisfy(cut -> assertThat(cut.join()).as("connections cut").isPositive());

                await().atMost(Duration.ofSeconds(60)).conditionEvaluationListener(c -> progress(db, consumer))
                        .until(() -> db.count("state = 'SENT'") == MESSAGES);
                // The transactional consumer is the slowest stage (a few hundred effects a second on a loaded
                // 2-core machine): a generous bound, never a wait.
                await().atMost(Duration.ofSeconds(120)).conditionEvaluationListener(c -> progress(db, consumer))
                        .until(() -> consumer.distinctEffects() == MESSAGES);

                assertThat(db.count("")).isEqualTo(MESSAGES);
                assertThat(consumer.missingEffects(db.table)).as("lost messages").isZero();
                assertThat(consumer.totalEffects()).as("effects, doubles included").isEqualTo(MESSAGES);
                assertThat(heldByKilled).as("rows claimed and not yet settled by the relays that were killed").isPositive();
                assertThat(consumer.deliveries()).isGreaterThanOrEqualTo(MESSAGES);
                log.info("{} deliveries for {} messages: {} duplicates absorbed by the consumer",
                        consumer.deliveries(), MESSAGES, consumer.deliveries() - MESSAGES);
            }
        }
    }

    private static long lastProgress;

    private static void progress(TestDatabase db, DownstreamConsumer consumer) {
        if (System.nanoTime() - lastProgress > 3_000_000_000L) {
            lastProgress = System.nanoTime();
            try {
                log.info("Progress: {} rows written, {} sent, {} effects", db.count(""), db.count("state = 'SENT'"),
                        consumer.totalEffects());
            } catch (java.sql.SQLException e) {
                log.info("Progress unknown: {}", e.toString());
            }
        }
    }

    private static String leasedBy(String relay) {
        return "state = 'PENDING' AND lease_owner LIKE '" + relay + "#%'";
    }

    private static void writeAll(TestDatabase db, String queue) {
        try {
            Outbox outbox = db.outbox();
            for (int start = 0; start < MESSAGES; start += PER_TRANSACTION) {
                int s = start;
                db.inTransaction(c -> {
                    List<OutboundMessage> batch = new ArrayList<>(PER_TRANSACTION);
                    for (int i = s; i < s + PER_TRANSACTION; i++) {
                        batch.add(OutboundMessage.of("", queue, bytes("order " + i)).withMessageId("order-" + i));
                    }
                    outbox.writeAll(c, batch, null);
                });
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
