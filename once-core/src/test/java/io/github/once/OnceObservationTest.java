package io.github.once;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The executor's observations, with a registry that records what it hears, and docs/tracing.md's reference table
 * checked against {@link OnceObservation}: a renamed observation or tag fails the build.
 */
class OnceObservationTest {

    /** Records each observation's name, tags and parent at its stop. */
    static class Recorder implements ObservationHandler<Observation.Context> {
        final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }

        @Override
        public void onStop(Observation.Context context) {
            stopped.add(context);
        }
    }

    @Test
    void theExecutorObservesItsClaimAndCompletionCallsUnderTheCallersObservation() {
        ObservationRegistry registry = ObservationRegistry.create();
        Recorder recorder = new Recorder();
        registry.observationConfig().observationHandler(recorder);
        try (Idempotency once = Idempotency.builder(InMemoryIdempotencyStore.builder().build()).observationRegistry(registry)
                .build()) {
            Observation caller = Observation.start("caller", registry);
            try (Observation.Scope scope = caller.openScope()) {
                once.execute(IdempotencyKey.of("orders", "o-1"), new byte[0], ResultCodec.utf8(), ctx -> "done");
                once.execute(IdempotencyKey.of("orders", "o-1"), new byte[0], ResultCodec.utf8(), ctx -> "again");
            } finally {
                caller.stop();
            }
        }
        List<String> names = recorder.stopped.stream().map(Observation.Context::getName).toList();
        assertThat(names).containsExactly("once.claim", "once.complete", "once.claim", "caller");
        Observation.Context claim = recorder.stopped.get(0);
        assertThat(claim.getParentObservation().getContextView().getName()).isEqualTo("caller");
        assertThat(claim.getLowCardinalityKeyValue("once.namespace").getValue()).isEqualTo("orders");
        assertThat(claim.getLowCardinalityKeyValue("once.store").getValue()).isEqualTo("memory");
        assertThat(claim.getLowCardinalityKeyValue("once.mode").getValue()).isEqualTo("default");
        assertThat(claim.getLowCardinalityKeyValue("once.outcome").getValue()).isEqualTo("success");
        assertThat(claim.getHighCardinalityKeyValue("once.batch.size").getValue()).isEqualTo("1");
    }

    @Test
    void withoutARegistryTheExecutorIsNotObserved() {
        try (Idempotency once = Idempotency.builder(InMemoryIdempotencyStore.builder().build()).build()) {
            assertThat(once.observed()).isFalse();
        }
    }

    @Test
    void docsTracingListsEachObservationWithItsTags() throws Exception {
        String doc = Files.readString(Path.of("../docs/tracing.md"));
        for (OnceObservation o : OnceObservation.values()) {
            String row = doc.lines().filter(l -> l.startsWith("| `" + o.getName() + "` |")).findFirst()
                    .orElseThrow(() -> new AssertionError("docs/tracing.md has no row for " + o.getName()));
            String[] cells = row.split("\\|");
            assertThat(names(cells[3])).as("%s's low-cardinality tags", o.getName()).isEqualTo(keys(o.getLowCardinalityKeyNames()));
            assertThat(names(cells[4])).as("%s's high-cardinality tags", o.getName()).isEqualTo(keys(o.getHighCardinalityKeyNames()));
        }
        for (OnceObservation.Event e : OnceObservation.Event.values()) {
            assertThat(doc).contains("`" + e.getName() + "`");
        }
    }

    private static List<String> names(String cell) {
        List<String> names = new ArrayList<>();
        for (String part : cell.split(",")) {
            String name = part.strip().replace("`", "");
            if (!name.isEmpty()) {
                names.add(name);
            }
        }
        return names;
    }

    private static List<String> keys(KeyName[] keys) {
        return Arrays.stream(keys).map(KeyName::asString).toList();
    }

    @Test
    void theDefaultConventionTagsWhatOnceRecordedAndNoneForWhatItCouldNot() {
        Observation.Context context = new Observation.Context();
        context.put(OnceObservation.class, OnceObservation.HANDLE);
        context.put(OnceObservation.Key.KEY, "o-1");
        OnceObservation.DefaultConvention convention = new OnceObservation.DefaultConvention(OnceObservation.HANDLE);
        assertThat(convention.supportsContext(context)).isTrue();
        assertThat(new OnceObservation.DefaultConvention(OnceObservation.CLAIM).supportsContext(context)).isFalse();
        assertThat(convention.getLowCardinalityKeyValues(context).stream().map(kv -> kv.getKey() + "=" + kv.getValue()))
                .containsExactly("once.namespace=none", "once.outcome=none");
        assertThat(convention.getHighCardinalityKeyValues(context).stream().map(kv -> kv.getKey() + "=" + kv.getValue()))
                .containsExactly("once.key=o-1");
    }

    @Test
    void eachVerdictIsTheProcessOutcomeAndAnEvent() {
        ObservationRegistry registry = ObservationRegistry.create();
        List<String> events = new CopyOnWriteArrayList<>();
        Recorder recorder = new Recorder() {
            @Override
            public void onEvent(Observation.Event event, Observation.Context context) {
                events.add(context.get(OnceObservation.Key.OUTCOME) + ":" + event.getName());
            }
        };
        registry.observationConfig().observationHandler(recorder);
        Map<String, String> verdicts = new java.util.LinkedHashMap<>();
        verdicts.put("DUPLICATE", null);
        verdicts.put("RETRIED_BUSY", null);
        verdicts.put("DEAD_LETTERED", "conflict");
        verdicts.put("DEAD_LETTERED ", "crash-loop");
        try (Idempotency once = Idempotency.builder(InMemoryIdempotencyStore.builder().build())
                .observationRegistry(registry).build()) {
            verdicts.forEach((action, reason) -> {
                Observation process = OnceObservation.startProcess(once, Map.of(), "orders",
                        IdempotencyKey.of("orders", "o-1"), null, 1);
                if (reason != null) {
                    process.getContext().put(OnceObservation.Key.REASON, reason); // as a dead letter's copy puts it
                }
                OnceObservation.stopProcess(process, action.strip());
            });
        }
        assertThat(events).containsExactly("duplicate:once.duplicate", "retried-busy:once.busy",
                "retried-busy:once.retry", "dead-lettered:once.dead_letter", "dead-lettered:once.conflict",
                "dead-lettered:once.dead_letter", "dead-lettered:once.crash_loop");
        assertThat(recorder.stopped).extracting(c -> c.getLowCardinalityKeyValue("once.dead_letter.reason").getValue())
                .containsExactly("none", "none", "conflict", "crash-loop");
    }

    @Test
    void aGlobalConventionRegisteredOnTheRegistryReplacesOnces() {
        ObservationRegistry registry = ObservationRegistry.create();
        Recorder recorder = new Recorder();
        registry.observationConfig().observationHandler(recorder)
                .observationConvention(new RenamedClaims());
        try (Idempotency once = Idempotency.builder(InMemoryIdempotencyStore.builder().build())
                .observationRegistry(registry).build()) {
            once.execute(IdempotencyKey.of("orders", "o-1"), new byte[0], ResultCodec.utf8(), ctx -> "done");
        }
        assertThat(recorder.stopped).extracting(Observation.Context::getName)
                .containsExactly("orders.claim", "once.complete");
        assertThat(recorder.stopped.get(0).getLowCardinalityKeyValue("team").getValue()).isEqualTo("payments");
        assertThat(recorder.stopped.get(0).getLowCardinalityKeyValue("once.namespace").getValue()).isEqualTo("orders");
    }

    /** A user's convention: claims renamed and tagged with a team, the rest of Once's tags kept. */
    static final class RenamedClaims extends OnceObservation.DefaultConvention
            implements io.micrometer.observation.GlobalObservationConvention<Observation.Context> {
        RenamedClaims() {
            super(OnceObservation.CLAIM);
        }

        @Override
        public String getName() {
            return "orders.claim";
        }

        @Override
        public io.micrometer.common.KeyValues getLowCardinalityKeyValues(Observation.Context context) {
            return super.getLowCardinalityKeyValues(context).and("team", "payments");
        }
    }
}
