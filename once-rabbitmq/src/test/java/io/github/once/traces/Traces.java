package io.github.once.traces;

import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.otel.bridge.OtelBaggageManager;
import io.micrometer.tracing.otel.bridge.OtelCurrentTraceContext;
import io.micrometer.tracing.otel.bridge.OtelPropagator;
import io.micrometer.tracing.otel.bridge.OtelTracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;

import java.util.List;
import java.util.Optional;

/**
 * Tracing as an application sets it up: the OpenTelemetry SDK (spans kept in its in-memory exporter, W3C
 * propagation) behind Micrometer Tracing's bridge, and an observation registry whose handlers make spans, reading
 * the context from received messages and writing it into sent ones. Shared with other modules' tests through
 * this module's test jar.
 */
public final class Traces implements AutoCloseable {
    public final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    public final ObservationRegistry registry = ObservationRegistry.create();
    public final OtelTracer tracer;
    public final OtelPropagator propagator;
    private final SdkTracerProvider provider;

    /** With the tracing handlers on {@link #registry}, as a plain application registers them. */
    public Traces() {
        this(true);
    }

    /**
     * {@code handlers} false: the tracer and the propagator only, for an application framework (Spring Boot) that
     * registers the tracing handlers on its own registry from them.
     */
    public Traces(boolean handlers) {
        provider = SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter)).build();
        ContextPropagators propagators = ContextPropagators.create(W3CTraceContextPropagator.getInstance());
        io.opentelemetry.api.trace.Tracer otel = provider.get("once-test");
        OtelCurrentTraceContext current = new OtelCurrentTraceContext();
        tracer = new OtelTracer(otel, current, event -> {
        }, new OtelBaggageManager(current, List.of(), List.of()));
        propagator = new OtelPropagator(propagators, otel);
        if (!handlers) {
            return;
        }
        registry.observationConfig().observationHandler(new ObservationHandler.FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
    }

    public List<SpanData> spans() {
        return exporter.getFinishedSpanItems();
    }

    public List<SpanData> named(String name) {
        return spans().stream().filter(s -> s.getName().equals(name)).toList();
    }

    public List<SpanData> childrenOf(SpanData parent, String name) {
        return named(name).stream().filter(s -> s.getParentSpanId().equals(parent.getSpanId())).toList();
    }

    public Optional<SpanData> byId(String spanId) {
        return spans().stream().filter(s -> s.getSpanId().equals(spanId)).findFirst();
    }

    public static String attribute(SpanData span, String key) {
        return span.getAttributes().asMap().entrySet().stream().filter(e -> e.getKey().getKey().equals(key))
                .map(e -> String.valueOf(e.getValue())).findFirst().orElse(null);
    }

    public static List<String> events(SpanData span) {
        return span.getEvents().stream().map(e -> e.getName()).toList();
    }

    @Override
    public void close() {
        provider.close();
    }
}
