package io.github.once.spring.boot;

import io.opentelemetry.sdk.trace.data.SpanData;

import static org.assertj.core.api.Assertions.assertThat;

/** With Spring AMQP's listener observation off (its default), Once's span continues the message's headers. */
class SpringTracingHeadersTest extends TracingScenarios {
    @Override
    void assertBetween(SpanData publish, SpanData process) {
        assertThat(process.getParentSpanId()).isEqualTo(publish.getSpanId());
    }
}
