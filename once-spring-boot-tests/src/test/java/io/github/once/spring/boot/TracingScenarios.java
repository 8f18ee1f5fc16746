package io.github.once.spring.boot;

import io.github.once.OnceObservation;
import io.github.once.spring.rabbit.Once;
import io.github.once.traces.Traces;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.opentelemetry.sdk.trace.data.SpanData;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.AmqpAdmin;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.Queue;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.amqp.rabbit.listener.RabbitListenerEndpointRegistry;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code @Once} listeners traced through the starter (once.observation-enabled) with the OpenTelemetry SDK behind
 * Micrometer Tracing, on the real RabbitMQ and PostgreSQL (transactional mode): a message sent inside a trace is
 * processed in that trace with its claim, handler and completion under its {@code once.process} span, and a
 * duplicate shows as one without a handler. The subclasses say what is between the sender's span and Once's.
 */
@SpringBootTest(classes = TracingScenarios.App.class, properties = {
        "spring.rabbitmq.host=127.0.0.1",
        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
        "spring.datasource.username=postgres",
        "once.store=jdbc",
        "once.lease=2s",
        "once.retry.max-attempts=3",
        "once.retry.backoff=30ms,60ms,120ms",
        "once.observation-enabled=true"})
@DirtiesContext // the subclasses share the queue and the table, one context after the other
abstract class TracingScenarios {
    static final Traces TRACES = new Traces(false);
    static final String QUEUE = Scenarios.queueName("traced");
    static final String TABLE = "once_spring_" + UUID.randomUUID().toString().substring(0, 8);
    static final AtomicInteger HANDLED = new AtomicInteger();
    /** Failures so far of the messages whose id starts with f-: each fails twice, then succeeds. */
    static final Map<String, Integer> FAILURES = new ConcurrentHashMap<>();

    @DynamicPropertySource
    static void names(DynamicPropertyRegistry r) {
        r.add("scenario.traced", () -> QUEUE);
        r.add("once.jdbc.table", () -> TABLE);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
        /** The application's tracer (Boot's own yields to it); Boot makes the tracing handlers of its registry. */
        @Bean
        io.micrometer.tracing.Tracer tracer() {
            return TRACES.tracer;
        }

        @Bean
        io.micrometer.tracing.propagation.Propagator propagator() {
            return TRACES.propagator;
        }

        @Bean
        TracedListener tracedListener() {
            return new TracedListener();
        }
    }

    static class TracedListener {
        @Autowired
        ObservationRegistry registry;

        @RabbitListener(queuesToDeclare = @Queue("${scenario.traced}"))
        @Once
        public void handle(Message message) {
            String id = message.getMessageProperties().getMessageId();
            if (id.startsWith("f-") && FAILURES.merge(id, 1, Integer::sum) <= 2) {
                throw new IllegalStateException("failure " + FAILURES.get(id) + " of " + id);
            }
            Observation.createNotStarted("test.effect", registry).observe(HANDLED::incrementAndGet);
        }
    }

    @Autowired
    RabbitTemplate template;
    @Autowired
    ObservationRegistry registry;

    /** The span between the sender's {@code once.publish} and {@code process} (null when there is none). */
    abstract void assertBetween(SpanData publish, SpanData process);

    /** Sends {@code id} inside a span of its own, its context in the headers; the sender's publish span. */
    SpanData sendTraced(String id) {
        Observation order = Observation.start("test.order", registry);
        Map<String, Object> headers;
        try (Observation.Scope scope = order.openScope()) {
            headers = OnceObservation.inject(order, "publish", QUEUE, Map.of());
        } finally {
            order.stop();
        }
        Message message = Scenarios.message(id, "{}");
        headers.forEach(message.getMessageProperties()::setHeader);
        template.send("", QUEUE, message);
        String traceparent = String.valueOf(headers.get("traceparent"));
        String spanId = traceparent.split("-")[2];
        return TRACES.byId(spanId).orElseThrow(() -> new AssertionError("no span " + traceparent + " among "
                + TRACES.spans().stream().map(s -> s.getName() + "/" + s.getSpanId()).toList()));
    }

    List<SpanData> processes(String id) {
        return TRACES.named("once.process").stream().filter(s -> id.equals(Traces.attribute(s, "once.key"))).toList();
    }

    @Test
    void aMessageInATraceIsProcessedInItWithClaimHandleAndCompleteUnderItsProcessSpan() {
        String id = "t-" + UUID.randomUUID().toString().substring(0, 8);
        SpanData publish = sendTraced(id);
        await().atMost(Duration.ofSeconds(20)).until(() -> processes(id).size() == 1);

        SpanData process = processes(id).get(0);
        assertThat(process.getTraceId()).isEqualTo(publish.getTraceId());
        assertBetween(publish, process);
        assertThat(Traces.attribute(process, "once.outcome")).isEqualTo("processed");
        assertThat(Traces.attribute(process, "once.mode")).isEqualTo("transactional");
        assertThat(Traces.attribute(process, "once.store")).isEqualTo("jdbc");
        assertThat(TRACES.childrenOf(process, "once.claim")).hasSize(1);
        assertThat(TRACES.childrenOf(process, "once.complete")).hasSize(1);
        SpanData handle = TRACES.childrenOf(process, "once.handle").get(0);
        assertThat(TRACES.childrenOf(handle, "test.effect")).as("the listener's own span").hasSize(1);
    }

    @Test
    void aDuplicateHasOutcomeDuplicateAndNoHandlerSpan() {
        String id = "d-" + UUID.randomUUID().toString().substring(0, 8);
        sendTraced(id);
        await().atMost(Duration.ofSeconds(20)).until(() -> processes(id).size() == 1);
        SpanData second = sendTraced(id);
        await().atMost(Duration.ofSeconds(20)).until(() -> processes(id).size() == 2);

        SpanData duplicate = processes(id).stream().filter(s -> s.getTraceId().equals(second.getTraceId()))
                .findFirst().orElseThrow();
        assertThat(Traces.attribute(duplicate, "once.outcome")).isEqualTo("duplicate");
        assertThat(Traces.events(duplicate)).contains("once.duplicate");
        assertThat(TRACES.childrenOf(duplicate, "once.handle")).isEmpty();
    }

    @Test
    void aMessageThatFailsTwiceThenSucceedsShowsThreeAttemptsInOneTraceLinkedThroughTheRetryCopies() {
        String id = "f-" + UUID.randomUUID().toString().substring(0, 8);
        SpanData publish = sendTraced(id);
        await().atMost(Duration.ofSeconds(20)).until(() -> processes(id).stream()
                .anyMatch(s -> "processed".equals(Traces.attribute(s, "once.outcome"))));

        List<SpanData> attempts = new java.util.ArrayList<>(processes(id));
        attempts.sort(java.util.Comparator.comparingLong(SpanData::getStartEpochNanos));
        assertThat(attempts).extracting(s -> Traces.attribute(s, "once.outcome"))
                .containsExactly("retried-failed", "retried-failed", "processed");
        assertThat(attempts).allSatisfy(s -> assertThat(s.getTraceId()).isEqualTo(publish.getTraceId()));
        for (int i = 1; i < 3; i++) {
            // attempt i+1 descends from the retry copy attempt i sent (through Spring's receive span when on)
            SpanData attempt = attempts.get(i - 1);
            SpanData copy = TRACES.childrenOf(attempt, "once.publish").stream().findFirst().orElseThrow(
                    () -> new AssertionError("no copy under " + attempt.getSpanId() + " in " + TRACES.spans().stream()
                            .filter(s -> s.getTraceId().equals(publish.getTraceId()))
                            .map(s -> s.getName() + "/" + s.getSpanId() + "<" + s.getParentSpanId()).toList()));
            assertThat(Traces.attribute(copy, "once.publish.kind")).isEqualTo("retry");
            assertBetween(copy, attempts.get(i));
        }
    }

    @AfterAll
    static void cleanUp(@Autowired RabbitListenerEndpointRegistry listeners, @Autowired AmqpAdmin admin,
                        @Autowired JdbcTemplate jdbc) {
        listeners.stop();
        Scenarios.deleteAll(admin, QUEUE);
        jdbc.execute("DROP TABLE IF EXISTS " + TABLE);
    }
}
