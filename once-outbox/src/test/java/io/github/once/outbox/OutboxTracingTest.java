package io.github.once.outbox;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.jdbc.JdbcIdempotencyStore;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.OutboundMessage;
import io.github.once.rabbitmq.Topology;
import io.github.once.traces.Traces;
import io.micrometer.observation.Observation;
import io.opentelemetry.sdk.trace.data.SpanData;

import java.time.Duration;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.Test;

import static io.github.once.outbox.OutboxWriteTest.bytes;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The trace goes application, database, relay, broker, consumer: an outbox row written inside a traced
 * transaction on PostgreSQL keeps the writer's context, the relay publishes it, and the consumer (transactional
 * mode on the same database) continues it in its {@code once.process} span.
 */
class OutboxTracingTest {

    @Test
    void anOutboxWriteInsideATracedTransactionIsContinuedByTheConsumersSpan() throws Exception {
        String records = "once_trace_" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        try (Traces traces = new Traces(); TestDatabase db = new TestDatabase(TestDatabase.Kind.POSTGRESQL);
             Broker broker = new Broker()) {
            String queue = broker.queue();
            Outbox outbox = Outbox.builder().tableName(db.table).observationRegistry(traces.registry).build();
            Observation order = Observation.start("test.place-order", traces.registry);
            try (Observation.Scope scope = order.openScope()) {
                db.inTransaction(c -> outbox.write(c, OutboundMessage.of("", queue, bytes("o-1")).withMessageId("o-1")));
            } finally {
                order.stop();
            }
            String trace = traces.named("test.place-order").get(0).getTraceId();

            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource).tableName(records)
                    .createTableIfMissing(true).build();
            try (OutboxRelay relay = db.relay(broker.connect("once-outbox-test-relay")).build().start();
                 Idempotency executor = Idempotency.builder(store).transactional()
                         .config(IdempotencyConfig.builder().leaseDuration(Duration.ofSeconds(5)).build())
                         .observationRegistry(traces.registry).build();
                 OnceConsumer consumer = OnceConsumer.builder(broker.connect("once-outbox-test-consumer"), queue,
                                 executor)
                         .handler((d, ctx) -> { })
                         .topology(Topology.none())
                         .build().start()) {
                await().atMost(Duration.ofSeconds(20)).until(() -> !traces.named("once.process").isEmpty());
            } finally {
                db.execute("DROP TABLE IF EXISTS " + records);
            }

            SpanData process = traces.named("once.process").get(0);
            assertThat(process.getTraceId()).as("the consumer's span is in the writer's trace").isEqualTo(trace);
            SpanData written = traces.byId(process.getParentSpanId()).orElseThrow();
            assertThat(written.getName()).isEqualTo("once.publish");
            assertThat(Traces.attribute(written, "once.publish.kind")).isEqualTo("outbox");
            assertThat(written.getParentSpanId()).isEqualTo(traces.named("test.place-order").get(0).getSpanId());
            assertThat(Traces.attribute(process, "once.outcome")).isEqualTo("processed");
            assertThat(Traces.attribute(process, "once.mode")).isEqualTo("transactional");
            assertThat(Traces.attribute(process, "once.store")).isEqualTo("jdbc");
            List<String> children = traces.spans().stream()
                    .filter(s -> s.getParentSpanId().equals(process.getSpanId())).map(SpanData::getName).toList();
            assertThat(children).contains("once.claim", "once.handle", "once.complete");
        }
    }
}
