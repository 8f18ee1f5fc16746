package io.github.once.rabbitmq;

import com.rabbitmq.client.GetResponse;

import io.github.once.Idempotency;
import io.github.once.redis.RedisIdempotencyStore;
import io.github.once.traces.Traces;
import io.micrometer.observation.Observation;
import io.opentelemetry.sdk.trace.data.SpanData;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Traces through the consumer, with the OpenTelemetry SDK behind Micrometer Tracing, the real RabbitMQ and the
 * real Redis: a message published inside a trace is processed in that trace, with its claim, handler and
 * completion under its {@code once.process} span; a duplicate, a retried failure and a dead letter show what
 * became of them, and the copies Once sends carry the trace on.
 */
class TracingTest {

    private final Traces traces = new Traces();
    private RabbitFixture rabbit;
    private RedisIdempotencyStore store;

    @BeforeEach
    void setUp() {
        rabbit = new RabbitFixture();
        rabbit.remember(ConsumerScenariosContract.FAST);
        store = RedisIdempotencyStore.builder().uri("redis://127.0.0.1:6379")
                .keyPrefix("once-test-" + UUID.randomUUID().toString().substring(0, 8) + ":")
                .timeout(Duration.ofSeconds(5)).build();
    }

    @AfterEach
    void tearDown() throws Exception {
        try {
            rabbit.close();
        } finally {
            store.close();
            traces.close();
        }
    }

    private OnceConsumer start(MessageHandler handler, UnaryOperator<OnceConsumer.Builder> custom) throws Exception {
        Idempotency executor = rabbit.track(Idempotency.builder(store)
                .config(StoreVariant.config(Duration.ofSeconds(5))).observationRegistry(traces.registry).build());
        OnceConsumer.Builder b = OnceConsumer.builder(rabbit.connect(), rabbit.queue, executor)
                .handler(handler)
                .retry(ConsumerScenariosContract.FAST)
                .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                .prefetch(10);
        return rabbit.track(custom.apply(b).build().start());
    }

    /** Publishes {@code message} inside an application span of its own, as a service would; its trace id. */
    private String publishTraced(OutboundMessage message) throws Exception {
        OncePublisher publisher = rabbit.track(OncePublisher.builder(rabbit.connect())
                .observationRegistry(traces.registry).build());
        Observation app = Observation.start("test.order", traces.registry);
        try (Observation.Scope scope = app.openScope()) {
            publisher.publish(message);
        } finally {
            app.stop();
        }
        return traces.named("test.order").stream().reduce((a, b) -> b).orElseThrow().getTraceId();
    }

    private OutboundMessage message(String id) {
        return OutboundMessage.of("", rabbit.queue, ("{\"id\":\"" + id + "\"}").getBytes(StandardCharsets.UTF_8))
                .withMessageId(id);
    }

    private List<SpanData> processSpans(String id, int atLeast) {
        await().atMost(Duration.ofSeconds(20)).until(() -> processes(id).size() >= atLeast);
        return processes(id);
    }

    private List<SpanData> processes(String id) {
        return traces.named("once.process").stream().filter(s -> id.equals(Traces.attribute(s, "once.key"))).toList();
    }

    @Test
    void aTracedMessageIsProcessedInItsTraceWithClaimHandleAndCompleteUnderItsProcessSpan() throws Exception {
        start((d, ctx) -> Observation.createNotStarted("test.effect", traces.registry).observe(() -> { }), b -> b);
        String trace = publishTraced(message("order-1"));

        SpanData process = processSpans("order-1", 1).get(0);
        assertThat(process.getTraceId()).as("the consumer continues the publisher's trace").isEqualTo(trace);
        SpanData publish = traces.byId(process.getParentSpanId()).orElseThrow();
        assertThat(publish.getName()).isEqualTo("once.publish");
        assertThat(Traces.attribute(publish, "once.publish.kind")).isEqualTo("publish");
        assertThat(Traces.attribute(process, "once.outcome")).isEqualTo("processed");
        assertThat(Traces.attribute(process, "once.namespace")).isEqualTo(rabbit.queue);
        assertThat(Traces.attribute(process, "once.store")).isEqualTo("redis");
        assertThat(Traces.attribute(process, "once.mode")).isEqualTo("default");
        assertThat(Traces.attribute(process, "messaging.destination.name")).isEqualTo(rabbit.queue);
        assertThat(traces.childrenOf(process, "once.claim")).hasSize(1);
        assertThat(traces.childrenOf(process, "once.complete")).hasSize(1);
        List<SpanData> handle = traces.childrenOf(process, "once.handle");
        assertThat(handle).hasSize(1);
        assertThat(Traces.attribute(handle.get(0), "once.outcome")).isEqualTo("success");
        assertThat(traces.childrenOf(handle.get(0), "test.effect")).as("the handler's own span").hasSize(1);
        assertThat(Traces.attribute(traces.childrenOf(process, "once.claim").get(0), "once.batch.size")).isEqualTo("1");
    }

    @Test
    void aDuplicateIsAProcessSpanWithOutcomeDuplicateAndNoHandlerSpan() throws Exception {
        AtomicInteger effects = new AtomicInteger();
        start((d, ctx) -> effects.incrementAndGet(), b -> b);
        OutboundMessage m = message("order-2");
        String first = publishTraced(m);
        processSpans("order-2", 1);
        String second = publishTraced(m); // a re-send: the same message id

        List<SpanData> spans = processSpans("order-2", 2);
        SpanData duplicate = spans.stream().filter(s -> s.getTraceId().equals(second)).findFirst().orElseThrow();
        assertThat(second).isNotEqualTo(first);
        assertThat(Traces.attribute(duplicate, "once.outcome")).isEqualTo("duplicate");
        assertThat(Traces.events(duplicate)).contains("once.duplicate");
        assertThat(traces.childrenOf(duplicate, "once.handle")).isEmpty();
        assertThat(traces.childrenOf(duplicate, "once.claim")).hasSize(1);
        assertThat(effects).hasValue(1);
    }

    @Test
    void aMessageThatFailsTwiceThenSucceedsShowsThreeAttemptsInOneTraceLinkedThroughTheRetryCopies() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        start((d, ctx) -> {
            if (calls.incrementAndGet() <= 2) {
                throw new IllegalStateException("failure " + calls.get());
            }
        }, b -> b);
        String trace = publishTraced(message("order-3"));

        await().atMost(Duration.ofSeconds(20)).until(() -> processes("order-3").stream()
                .anyMatch(s -> "processed".equals(Traces.attribute(s, "once.outcome"))));
        List<SpanData> attempts = new ArrayList<>(processes("order-3"));
        attempts.sort((a, b) -> Long.compare(a.getStartEpochNanos(), b.getStartEpochNanos()));
        assertThat(attempts).hasSize(3);
        assertThat(attempts).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(trace));
        assertThat(attempts).extracting(s -> Traces.attribute(s, "once.attempt")).containsExactly("1", "2", "3");
        assertThat(attempts).extracting(s -> Traces.attribute(s, "once.outcome"))
                .containsExactly("retried-failed", "retried-failed", "processed");
        for (int i = 1; i < 3; i++) {
            // attempt i+1 continues from the retry copy that attempt i sent
            SpanData copy = traces.byId(attempts.get(i).getParentSpanId()).orElseThrow();
            assertThat(copy.getName()).isEqualTo("once.publish");
            assertThat(Traces.attribute(copy, "once.publish.kind")).isEqualTo("retry");
            assertThat(copy.getParentSpanId()).isEqualTo(attempts.get(i - 1).getSpanId());
            assertThat(Traces.events(attempts.get(i - 1))).contains("once.retry");
            SpanData failedHandler = traces.childrenOf(attempts.get(i - 1), "once.handle").get(0);
            assertThat(Traces.attribute(failedHandler, "once.outcome")).isEqualTo("failure");
        }
    }

    @Test
    void aDeadLetterCarriesTheTraceOfItsLastAttempt() throws Exception {
        start((d, ctx) -> {
            throw new IllegalStateException("always");
        }, b -> b);
        String trace = publishTraced(message("order-4"));

        await().atMost(Duration.ofSeconds(20)).until(() -> processes("order-4").stream()
                .anyMatch(s -> "dead-lettered".equals(Traces.attribute(s, "once.outcome"))));
        SpanData last = processes("order-4").stream()
                .filter(s -> "dead-lettered".equals(Traces.attribute(s, "once.outcome"))).findFirst().orElseThrow();
        assertThat(Traces.attribute(last, "once.dead_letter.reason")).isEqualTo("max-attempts");
        assertThat(Traces.events(last)).contains("once.dead_letter");
        SpanData copy = traces.childrenOf(last, "once.publish").get(0);
        assertThat(Traces.attribute(copy, "once.publish.kind")).isEqualTo("dead-letter");

        List<GetResponse> dead = rabbit.drain(Topology.deadLetterQueue(rabbit.queue));
        assertThat(dead).hasSize(1);
        Object traceparent = dead.get(0).getProps().getHeaders().get("traceparent");
        assertThat(String.valueOf(traceparent)).as("the dead letter's traceparent")
                .isEqualTo("00-" + trace + "-" + copy.getSpanId() + "-01");
    }

    @Test
    void withBatchClaimsEachHandlerRunsUnderItsOwnDeliverysProcessSpan() throws Exception {
        Map<String, String> handledIn = new ConcurrentHashMap<>();
        start((d, ctx) -> handledIn.put(ctx.key().id(), "seen"), b -> b.batchClaims(true));
        Map<String, String> traceOf = new ConcurrentHashMap<>();
        for (int i = 0; i < 6; i++) {
            traceOf.put("batch-" + i, publishTraced(message("batch-" + i)));
        }

        for (String id : traceOf.keySet()) {
            SpanData process = processSpans(id, 1).get(0);
            assertThat(process.getTraceId()).isEqualTo(traceOf.get(id));
            assertThat(traces.childrenOf(process, "once.handle")).as("%s's handler", id).hasSize(1);
        }
        List<SpanData> claims = traces.named("once.claim");
        int claimed = claims.stream().mapToInt(s -> Integer.parseInt(Traces.attribute(s, "once.batch.size"))).sum();
        assertThat(claimed).as("keys claimed over all claim calls").isEqualTo(6);
        assertThat(claims).allSatisfy(claim -> assertThat(traces.byId(claim.getParentSpanId()).orElseThrow().getName())
                .isEqualTo("once.process"));
        assertThat(handledIn).hasSize(6);
    }

    @Test
    void withoutARegistryOnceRunsWithNoMicrometerOnTheClassPath() throws Exception {
        rabbit.admin().queueDeclare(rabbit.queue, true, false, false, null);
        String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !entry.contains("micrometer") && !entry.contains("opentelemetry"))
                .collect(Collectors.joining(File.pathSeparator));
        // The class path as given (surefire's own class path, not a manifest-only jar), without Micrometer:
        assertThat(System.getProperty("java.class.path")).contains("micrometer-observation");
        assertThat(classPath).contains("amqp-client").doesNotContain("micrometer-observation");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Xmx128m", "-cp", classPath, WithoutMicrometer.class.getName(),
                rabbit.queue).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as("the consumer's exit; its output:%n%s", output).isZero();
        assertThat(output).doesNotContain("NoClassDefFoundError");
    }
}
