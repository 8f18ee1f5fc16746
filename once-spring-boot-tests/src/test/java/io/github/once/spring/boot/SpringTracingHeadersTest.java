package io.github.once.spring.boot;

import io.opentelemetry.sdk.trace.data.SpanData;

import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/** With Spring AMQP's listener observation off, Once's span continues the trace of the message's headers. */
@SpringBootTest(classes = TracingScenarios.App.class, properties = {
        "spring.rabbitmq.host=127.0.0.1",
        "spring.datasource.url=jdbc:postgresql://127.0.0.1:5432/test",
        "spring.datasource.username=postgres",
        "once.store=jdbc",
        "once.lease=2s",
        "once.retry.max-attempts=3",
        "once.retry.backoff=30ms,60ms,120ms",
        "once.observation-enabled=true"})
class SpringTracingHeadersTest extends TracingScenarios {
    @Override
    void assertBetween(SpanData publish, SpanData process) {
        assertThat(process.getParentSpanId()).isEqualTo(publish.getSpanId());
    }
}
