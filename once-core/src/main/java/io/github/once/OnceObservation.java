package io.github.once;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.docs.ObservationDocumentation;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The Micrometer observations Once makes once an {@link ObservationRegistry} is set
 * ({@link Idempotency.Builder#observationRegistry}); none at all without one. Micrometer Tracing turns them into
 * spans, a meter registry's handler into timers:
 * <pre>
 * once.process     one delivery, from taken in hand to settled (acked, moved or given back); continues the trace
 *                  of the message's headers (W3C traceparent, or what the propagator reads)
 *   once.claim     one claim call (in batch mode one per batch, under the batch's first delivery)
 *   once.handle    the handler; its own spans (JDBC, HTTP) are its children
 *   once.complete  one completion call
 *   once.publish   a copy sent to a delay or the dead-letter queue, a message OncePublisher sends, or an outbox
 *                  row written: carries the trace context in its headers
 * </pre>
 * Each observation's tags are its {@link Key}s; the {@link DefaultConvention} of each names them. To rename or add
 * tags, register a {@code GlobalObservationConvention} that supports the context (extend {@link DefaultConvention});
 * to drop an observation, an {@code ObservationPredicate} on its name.
 */
public enum OnceObservation implements ObservationDocumentation {

    /** One delivery, from taken in hand to settled. */
    PROCESS("once.process", List.of(Key.NAMESPACE, Key.QUEUE, Key.STORE, Key.MODE, Key.OUTCOME, Key.REASON),
            List.of(Key.KEY, Key.ATTEMPT)),
    /** The handler of one delivery. */
    HANDLE("once.handle", List.of(Key.NAMESPACE, Key.OUTCOME), List.of(Key.KEY)),
    /** One claim call to the store, for one key or a batch. */
    CLAIM("once.claim", List.of(Key.NAMESPACE, Key.STORE, Key.MODE, Key.OUTCOME), List.of(Key.BATCH_SIZE)),
    /** One completion call to the store, for one key or a batch. */
    COMPLETE("once.complete", List.of(Key.NAMESPACE, Key.STORE, Key.MODE, Key.OUTCOME), List.of(Key.BATCH_SIZE)),
    /** A message sent with the trace context in its headers: a retry or dead-letter copy, a publish, an outbox row. */
    PUBLISH("once.publish", List.of(Key.KIND, Key.QUEUE), List.of());

    private final String name;
    private final List<Key> low;
    private final List<Key> high;

    OnceObservation(String name, List<Key> low, List<Key> high) {
        this.name = name;
        this.low = low;
        this.high = high;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
        return low.toArray(new KeyName[0]);
    }

    @Override
    public KeyName[] getHighCardinalityKeyNames() {
        return high.toArray(new KeyName[0]);
    }

    @Override
    public Observation.Event[] getEvents() {
        return this == PROCESS ? Event.values() : new Observation.Event[0];
    }

    /** The tags of Once's observations; a low-cardinality tag Once could not tell is {@code none}. */
    public enum Key implements KeyName {
        /** The key's namespace. */
        NAMESPACE("once.namespace"),
        /** The queue consumed from, or the one a copy is sent to. */
        QUEUE("messaging.destination.name"),
        /** The store's kind: {@code memory}, {@code redis}, {@code jdbc}, {@code tiered}, or a store's class name. */
        STORE("once.store"),
        /** {@code transactional} or {@code default}. */
        MODE("once.mode"),
        /**
         * For a delivery what became of it ({@code processed}, {@code duplicate}, {@code retried-busy},
         * {@code retried-lease-lost}, {@code retried-failed}, {@code dead-lettered}, {@code requeued},
         * {@code abandoned}); for a handler or a store call {@code success} or {@code failure}.
         */
        OUTCOME("once.outcome"),
        /** A dead letter's reason ({@code conflict}, {@code max-attempts}, {@code crash-loop}, ...), else none. */
        REASON("once.dead_letter.reason"),
        /** What a publish was: {@code publish}, {@code retry}, {@code dead-letter} or {@code outbox}. */
        KIND("once.publish.kind"),
        /** The idempotency key (high cardinality: a span attribute, never a meter tag). */
        KEY("once.key"),
        /** The delivery's attempt. */
        ATTEMPT("once.attempt"),
        /** The keys in one store call. */
        BATCH_SIZE("once.batch.size");

        private final String key;

        Key(String key) {
            this.key = key;
        }

        @Override
        public String asString() {
            return key;
        }
    }

    /** What a delivery's {@code once.process} observation records on its way, besides its outcome. */
    public enum Event implements Observation.Event {
        /** The key was processed before: the handler did not run. */
        DUPLICATE("once.duplicate"),
        /** Another consumer holds the key: the delivery waits in a delay queue. */
        BUSY("once.busy"),
        /** The key was processed before with another payload. */
        CONFLICT("once.conflict"),
        /** The key's owners died with it too often: dead-lettered without running. */
        CRASH_LOOP("once.crash_loop"),
        /** A copy went to a delay queue for another attempt. */
        RETRY("once.retry"),
        /** A copy went to the dead-letter queue. */
        DEAD_LETTER("once.dead_letter");

        private final String name;

        Event(String name) {
            this.name = name;
        }

        @Override
        public String getName() {
            return name;
        }
    }

    /**
     * The convention Once names and tags each observation with: the observation's name, and its {@link Key}s from
     * what Once put in the context ({@code context.get(Key.X)}). Extend it, as a {@code GlobalObservationConvention}
     * registered on the registry, to change either.
     */
    public static class DefaultConvention implements ObservationConvention<Observation.Context> {
        private final OnceObservation observation;

        public DefaultConvention(OnceObservation observation) {
            this.observation = Objects.requireNonNull(observation, "observation");
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return context.get(OnceObservation.class) == observation;
        }

        @Override
        public String getName() {
            return observation.name;
        }

        @Override
        public KeyValues getLowCardinalityKeyValues(Observation.Context context) {
            List<KeyValue> values = new ArrayList<>(observation.low.size());
            for (Key key : observation.low) {
                Object value = context.get(key);
                values.add(KeyValue.of(key.asString(), value == null ? "none" : value.toString()));
            }
            return KeyValues.of(values);
        }

        @Override
        public KeyValues getHighCardinalityKeyValues(Observation.Context context) {
            List<KeyValue> values = new ArrayList<>(observation.high.size());
            for (Key key : observation.high) {
                Object value = context.get(key);
                if (value != null) {
                    values.add(KeyValue.of(key.asString(), value.toString()));
                }
            }
            return KeyValues.of(values);
        }
    }

    // ---- for Once's adapters

    /**
     * Starts the {@code once.process} observation of one delivery. Inside an observation already open on this
     * thread (a listener container's own) it is that one's child; otherwise it continues the trace of
     * {@code headers} (a receiver context: the registry's propagating handler reads the context from them). Call
     * only when {@code executor} {@link Idempotency#observed() is observed}.
     */
    public static Observation startProcess(Idempotency executor, Map<String, Object> headers, String queue,
                                           IdempotencyKey key, String namespace, int attempt) {
        StoreCallObservations observed = executor.observations;
        ObservationRegistry registry = observed.registry;
        Observation.Context context;
        if (registry.getCurrentObservation() != null) {
            context = new Observation.Context();
        } else {
            ReceiverContext<Map<String, Object>> receiver = new ReceiverContext<>((carrier, name) -> {
                Object value = carrier.get(name);
                return value == null ? null : value.toString();
            });
            receiver.setCarrier(headers == null ? Map.of() : headers);
            context = receiver;
        }
        context.put(Key.QUEUE, queue);
        context.put(Key.NAMESPACE, key != null ? key.namespace() : namespace);
        context.put(Key.STORE, observed.store);
        context.put(Key.MODE, observed.mode);
        if (key != null) {
            context.put(Key.KEY, key.id());
        }
        context.put(Key.ATTEMPT, attempt);
        return observation(PROCESS, context, registry).start();
    }

    /**
     * Records on a delivery's {@code once.process} observation what became of it, with its event, and stops it.
     * {@code outcome} is the consumer's action (its name). A dead letter's reason code is the context's
     * {@link Key#REASON}, put there when the copy was sent.
     */
    public static void stopProcess(Observation process, String outcome) {
        String value = outcome.toLowerCase(Locale.ROOT).replace('_', '-');
        process.getContext().put(Key.OUTCOME, value);
        Object reason = process.getContext().get(Key.REASON);
        if (reason != null) {
            process.event(Event.DEAD_LETTER);
            if (reason.equals("conflict")) {
                process.event(Event.CONFLICT);
            } else if (reason.equals("crash-loop")) {
                process.event(Event.CRASH_LOOP);
            }
        }
        switch (value) {
            case "duplicate" -> process.event(Event.DUPLICATE);
            case "retried-busy" -> process.event(Event.BUSY);
            default -> {
            }
        }
        if (value.startsWith("retried-")) {
            process.event(Event.RETRY);
        }
        process.stop();
    }

    /**
     * {@code handler}, run in a {@code once.handle} observation, child of {@code process}, open on the handler's
     * thread so that the handler's own observations are its children.
     */
    public static <T> Handler<T> handled(Observation process, IdempotencyKey key, Handler<T> handler) {
        return ctx -> {
            Observation.Context context = new Observation.Context();
            context.put(Key.NAMESPACE, key.namespace());
            context.put(Key.KEY, key.id());
            Observation handle = observation(HANDLE, context, process.getObservationRegistry())
                    .parentObservation(process).start();
            try (Observation.Scope scope = handle.openScope()) {
                T result = handler.handle(ctx);
                context.put(Key.OUTCOME, "success");
                return result;
            } catch (Throwable t) {
                context.put(Key.OUTCOME, "failure");
                handle.error(t);
                throw t;
            } finally {
                handle.stop();
            }
        };
    }

    /**
     * Headers for a message sent in the trace of {@code parent}: a copy of {@code headers} with the trace context
     * put in by the registry's propagating handler, through a {@code once.publish} observation of {@code kind} to
     * {@code destination}.
     */
    public static Map<String, Object> inject(Observation parent, String kind, String destination,
                                             Map<String, Object> headers) {
        Objects.requireNonNull(parent, "parent");
        Map<String, Object> copy = headers == null ? new HashMap<>() : new HashMap<>(headers);
        SenderContext<Map<String, Object>> context = new SenderContext<>((carrier, name, value) -> {
            if (carrier != null) {
                carrier.put(name, value);
            }
        });
        context.setCarrier(copy);
        context.put(Key.KIND, kind);
        context.put(Key.QUEUE, destination);
        Observation publish = observation(PUBLISH, context, parent.getObservationRegistry());
        // The propagating handler writes the context at start. With the parent's scope open too: a sender handler
        // that looks for the current span (not the parent observation) finds the same one, even inside a listener
        // container's own observation.
        try (Observation.Scope scope = parent.openScope()) {
            publish.parentObservation(parent).start().stop();
        }
        return copy;
    }

    static Observation observation(OnceObservation which, Observation.Context context, ObservationRegistry registry) {
        context.put(OnceObservation.class, which);
        return Observation.createNotStarted(null, which.convention(), () -> context, registry);
    }

    private DefaultConvention convention() {
        return CONVENTIONS.get(this);
    }

    private static final Map<OnceObservation, DefaultConvention> CONVENTIONS = conventions();

    private static Map<OnceObservation, DefaultConvention> conventions() {
        Map<OnceObservation, DefaultConvention> map = new HashMap<>();
        for (OnceObservation o : values()) {
            map.put(o, new DefaultConvention(o));
        }
        return map;
    }

    /** {@code memory}, {@code redis}, {@code jdbc}, {@code tiered} for Once's stores, else the class's simple name. */
    static String storeKind(Object store) {
        String name = store.getClass().getSimpleName();
        return switch (name) {
            case "InMemoryIdempotencyStore" -> "memory";
            case "RedisIdempotencyStore" -> "redis";
            case "JdbcIdempotencyStore" -> "jdbc";
            case "TieredIdempotencyStore" -> "tiered";
            default -> name;
        };
    }
}
