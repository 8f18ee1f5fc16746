package io.github.once.bench.e2e;

import com.rabbitmq.client.Connection;

import io.github.once.Idempotency;
import io.github.once.IdempotencyConfig;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.Outcome;
import io.github.once.Task;
import io.github.once.bench.OnceJdbc;
import io.github.once.bench.Services;
import io.github.once.micrometer.OnceMeters;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.MessageHandler;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.tiered.TieredIdempotencyStore;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The consumers compared end to end. Each run gets a fresh queue filled the same way and a fresh key namespace;
 * every variant runs the same effect (a counter) per message. The Spring container variants compare Once's advice
 * with the plain Spring AMQP listener it wraps, and run only when named.
 */
enum Variant {

    BASELINE("plain manual-ack consumer, no guard") {
        @Override
        Consumption start(Run run) throws Exception {
            return PlainConsumer.start(run.connection(), run.queue(), run.prefetch(), run.meter());
        }
    },
    PLAIN_JDBC("plain manual-ack consumer, no guard, writes the effect row auto-committed, then acks") {
        @Override
        Consumption start(Run run) throws Exception {
            return PlainJdbcConsumer.start(run, 1);
        }
    },
    PLAIN_JDBC_BATCH("plain consumer, no guard, the effect row per delivery, 100 per transaction, one multiple ack") {
        @Override
        Consumption start(Run run) throws Exception {
            return PlainJdbcConsumer.start(run, 100);
        }
    },
    ONCE_MEMORY("Once, in-memory store") {
        @Override
        Consumption start(Run run) throws Exception {
            InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().build();
            return once(run, Idempotency.builder(store).config(CONFIG).listener(run.meter().storeTimes()).build(), false, store);
        }
    },
    ONCE_MEMORY_BATCH("Once, in-memory store, batch claims over the deliveries in hand (the consumer's default)") {
        @Override
        Consumption start(Run run) throws Exception {
            InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().build();
            return once(run, Idempotency.builder(store).config(CONFIG).listener(run.meter().storeTimes()).build(), true, store);
        }
    },
    ONCE_MEMORY_METERS("Once, in-memory store, with once-micrometer's meters on a Prometheus registry") {
        @Override
        Consumption start(Run run) throws Exception {
            InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().build();
            OnceMeters meters = OnceMeters.builder(new PrometheusMeterRegistry(PrometheusConfig.DEFAULT)).build();
            Idempotency executor = Idempotency.builder(store).config(CONFIG)
                    .listener(run.meter().storeTimes()).listener(meters.executor(run.namespace())).build();
            return OnceConsumption.start(run, executor, Mode.ONE_AT_A_TIME, store,
                    meters.consumer(run.queue(), run.namespace()));
        }
    },
    ONCE_MEMORY_OBSERVED("Once, in-memory store, observed: an ObservationRegistry whose one handler does nothing") {
        @Override
        Consumption start(Run run) throws Exception {
            InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().build();
            return once(run, Idempotency.builder(store).config(CONFIG).listener(run.meter().storeTimes())
                    .observationRegistry(Observations.noopHandler()).build(), false, store);
        }
    },
    ONCE_MEMORY_TRACED("Once, in-memory store, traced: spans through Micrometer Tracing's OpenTelemetry bridge") {
        @Override
        Consumption start(Run run) throws Exception {
            InMemoryIdempotencyStore store = InMemoryIdempotencyStore.builder().build();
            AtomicLong spans = new AtomicLong();
            return once(run, Idempotency.builder(store).config(CONFIG).listener(run.meter().storeTimes())
                    .observationRegistry(Observations.openTelemetry(spans)).build(), false, () -> {
                        System.out.printf("  spans exported: %,d%n", spans.get());
                        store.close();
                    });
        }
    },
    ONCE_REDIS("Once, Redis store") {
        @Override
        Consumption start(Run run) throws Exception {
            RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(run.services().redisUri()).build();
            return once(run, Idempotency.builder(store).config(CONFIG).listener(run.meter().storeTimes()).build(), false, store);
        }
    },
    ONCE_REDIS_BATCH("Once, Redis store, batch claims over the deliveries in hand (the consumer's default)") {
        @Override
        Consumption start(Run run) throws Exception {
            RedisIdempotencyStore store = RedisIdempotencyStore.builder().uri(run.services().redisUri()).build();
            return once(run, Idempotency.builder(store).config(CONFIG).listener(run.meter().storeTimes()).build(), true, store);
        }
    },
    ONCE_JDBC("Once, PostgreSQL store, record in a separate transaction; the effect row auto-committed") {
        @Override
        Consumption start(Run run) throws Exception {
            OnceJdbc jdbc = OnceJdbc.open(run.services(), run.namespace());
            return jdbcRows(run, jdbc, Idempotency.builder(jdbc.store()).config(CONFIG)
                    .listener(run.meter().storeTimes()).build(), Mode.ONE_AT_A_TIME, false, jdbc);
        }
    },
    ONCE_JDBC_TX("Once, PostgreSQL, effect row and record in one transaction") {
        @Override
        Consumption start(Run run) throws Exception {
            OnceJdbc jdbc = OnceJdbc.open(run.services(), run.namespace());
            return jdbcRows(run, jdbc, Idempotency.builder(jdbc.store()).transactional().config(CONFIG)
                    .listener(run.meter().storeTimes()).build(), Mode.ONE_AT_A_TIME, true, jdbc);
        }
    },
    ONCE_JDBC_TX_BATCH("Once, PostgreSQL, transactional (effect row and record), batch over the deliveries in hand (the consumer's default)") {
        @Override
        Consumption start(Run run) throws Exception {
            OnceJdbc jdbc = OnceJdbc.open(run.services(), run.namespace());
            return jdbcRows(run, jdbc, Idempotency.builder(jdbc.store()).transactional().config(CONFIG)
                    .listener(run.meter().storeTimes()).build(), Mode.BATCH, true, jdbc);
        }
    },
    ONCE_TIERED_TX_BATCH("Once, Redis in front of PostgreSQL (tiered), transactional (effect row and record), batch over the deliveries in hand") {
        @Override
        Consumption start(Run run) throws Exception {
            return tiered(run);
        }
    },
    SPRING_PLAIN("Spring AMQP SimpleMessageListenerContainer, AUTO ack, no guard") {
        @Override
        Consumption start(Run run) {
            return SpringContainerConsumption.plain(run);
        }
    },
    SPRING_ONCE_MEMORY("the same container with once-spring-rabbit's OnceAdvice, in-memory store") {
        @Override
        Consumption start(Run run) {
            return SpringContainerConsumption.once(run, InMemoryIdempotencyStore.builder().build(), CONFIG);
        }
    },
    SPRING_ONCE_REDIS("the same container with once-spring-rabbit's OnceAdvice, Redis store") {
        @Override
        Consumption start(Run run) {
            return SpringContainerConsumption.once(run,
                    RedisIdempotencyStore.builder().uri(run.services().redisUri()).build(), CONFIG);
        }
    };

    /**
     * Run only when named, so the default list stays as long as it was; scripts/bench.sh runs them on their own
     * lines (the tiered one beside the JDBC store alone).
     */
    private static final Set<Variant> ON_REQUEST =
            EnumSet.of(ONCE_TIERED_TX_BATCH, SPRING_PLAIN, SPRING_ONCE_MEMORY, SPRING_ONCE_REDIS,
                    ONCE_MEMORY_OBSERVED, ONCE_MEMORY_TRACED);

    /** No Once in them, so no store calls to report. */
    private static final Set<Variant> UNGUARDED = EnumSet.of(BASELINE, PLAIN_JDBC, PLAIN_JDBC_BATCH, SPRING_PLAIN);

    /** Their effect is the row {@link EffectRows} writes. */
    private static final Set<Variant> ROWS = EnumSet.of(PLAIN_JDBC, PLAIN_JDBC_BATCH, ONCE_JDBC, ONCE_JDBC_TX,
            ONCE_JDBC_TX_BATCH, ONCE_TIERED_TX_BATCH);

    /**
     * The defaults (30 s lease, SHA-256 fingerprints) with a 10-minute retention, so a run's records leave the
     * shared Redis soon after it (PostgreSQL rows are deleted when the run closes).
     */
    private static final IdempotencyConfig CONFIG =
            IdempotencyConfig.builder().retention(Duration.ofMinutes(10)).build();

    private final String description;

    Variant(String description) {
        this.description = description;
    }

    String description() {
        return description;
    }

    /** The variants run when none are named: all but the Spring container ones. */
    static List<Variant> defaults() {
        List<Variant> list = new ArrayList<>(List.of(values()));
        list.removeAll(ON_REQUEST);
        return list;
    }

    /** Whether the variant's effect is a row in PostgreSQL ({@link EffectRows}). */
    boolean writesRows() {
        return ROWS.contains(this);
    }

    /** Whether the variant runs Once, so that its store calls are timed. */
    boolean guarded() {
        return !UNGUARDED.contains(this);
    }

    String label() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Variant fromLabel(String label) {
        for (Variant v : values()) {
            if (v.label().equals(label.trim())) {
                return v;
            }
        }
        StringBuilder known = new StringBuilder();
        for (Variant v : values()) {
            known.append(known.length() == 0 ? "" : ", ").append(v.label());
        }
        throw new IllegalArgumentException("variant must be one of " + known + ", but was '" + label + "'");
    }

    abstract Consumption start(Run run) throws Exception;

    private static Consumption once(Run run, Idempotency executor, boolean batchClaims,
                                    AutoCloseable resources) throws Exception {
        return OnceConsumption.start(run, executor, batchClaims ? Mode.BATCH : Mode.ONE_AT_A_TIME, resources);
    }

    /**
     * A JDBC variant whose handler writes the effect row ({@link EffectRows}): on the transaction's connection in
     * transactional mode, else auto-committed on a connection of the pool; the run's rows go when it closes, then
     * {@code resources}.
     */
    private static Consumption jdbcRows(Run run, OnceJdbc jdbc, Idempotency executor, Mode mode,
                                        boolean transactional, AutoCloseable resources) throws Exception {
        EffectRows.create(jdbc.dataSource());
        Meter meter = run.meter();
        String namespace = run.namespace();
        MessageHandler effect = (delivery, context) -> {
            String id = delivery.getProperties().getMessageId();
            if (transactional) {
                EffectRows.insert(context.resource(java.sql.Connection.class), namespace, id,
                        delivery.getBody().length);
            } else {
                try (java.sql.Connection c = jdbc.dataSource().getConnection()) {
                    EffectRows.insert(c, namespace, id, delivery.getBody().length);
                }
            }
            meter.effect();
        };
        return OnceConsumption.start(run, executor, mode, () -> {
            try {
                EffectRows.delete(jdbc.dataSource(), namespace);
            } finally {
                resources.close();
            }
        }, ConsumerListener.NONE, effect);
    }

    /** The tiered store, Redis in front of PostgreSQL, in transactional mode over the JDBC store. */
    private static Consumption tiered(Run run) throws Exception {
        OnceJdbc jdbc = OnceJdbc.open(run.services(), run.namespace());
        RedisIdempotencyStore front = RedisIdempotencyStore.builder().uri(run.services().redisUri()).build();
        TieredIdempotencyStore tiered = TieredIdempotencyStore.builder(front, jdbc.store()).build();
        Idempotency executor = Idempotency.builder(tiered).transactional()
                .config(CONFIG).listener(run.meter().storeTimes()).build();
        // Closing the tiered store closes both stores; jdbc.close() then deletes the run's rows.
        return jdbcRows(run, jdbc, executor, Mode.BATCH, true, () -> {
            try {
                System.out.printf("  tiered store: %,d front hits, %,d front failures, %,d copies skipped%n",
                        tiered.frontHits(), tiered.frontFailures(), tiered.copiesSkipped());
                tiered.close();
            } finally {
                jdbc.close();
            }
        });
    }

    /** How the consumer takes its deliveries: one claim each, or batch claims over the deliveries in hand. */
    enum Mode {
        ONE_AT_A_TIME, BATCH
    }

    /** What one run gives a variant. */
    record Run(Services services, Connection connection, String queue, String namespace,
               int prefetch, int channels, int maxBatch, Meter meter) {
    }
}
