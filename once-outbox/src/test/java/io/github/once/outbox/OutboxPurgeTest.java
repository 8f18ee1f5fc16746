package io.github.once.outbox;

import io.github.once.rabbitmq.OutboundMessage;

import java.time.Duration;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static io.github.once.outbox.OutboxWriteTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;

/** Sent rows are purged after their retention, in bounded batches; pending and parked rows are never touched. */
class OutboxPurgeTest {

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void sentRowsArePurgedInBoundedBatchesAndNothingElse(TestDatabase.Kind kind) throws Exception {
        try (TestDatabase db = new TestDatabase(kind); Broker broker = new Broker()) {
            String queue = broker.queue();
            OutboxRelay relay = db.relay(broker.connect("once-outbox-test-relay")).build();
            db.inTransaction(c -> {
                for (int i = 0; i < 25; i++) {
                    db.outbox().write(c, OutboundMessage.of("", queue, bytes("m" + i)));
                }
            });
            assertThat(relay.runOnce().published()).isEqualTo(25);
            db.inTransaction(c -> {
                for (int i = 0; i < 3; i++) {
                    db.outbox().write(c, OutboundMessage.of("", queue, bytes("later" + i)));
                }
            });
            db.execute("UPDATE $table SET state = 'PARKED' WHERE id = (SELECT max(id) FROM $table)");

            OutboxPurger keepAnHour = OutboxPurger.builder(db.dataSource).tableName(db.table)
                    .retention(Duration.ofHours(1)).build();
            assertThat(keepAnHour.runOnce()).as("sent rows younger than the retention stay").isZero();

            OutboxPurger purger = OutboxPurger.builder(db.dataSource).tableName(db.table)
                    .retention(Duration.ZERO).batchSize(10).maxBatchesPerRun(2).build();
            assertThat(purger.runOnce()).as("one run stops at its batch limit").isEqualTo(20);
            assertThat(purger.purgeBatch()).isEqualTo(5);
            assertThat(purger.purgeBatch()).isZero();
            assertThat(db.count("state = 'SENT'")).isZero();
            assertThat(db.count("state = 'PENDING'")).isEqualTo(2);
            assertThat(db.count("state = 'PARKED'")).isEqualTo(1);
            relay.close();
        }
    }
}
