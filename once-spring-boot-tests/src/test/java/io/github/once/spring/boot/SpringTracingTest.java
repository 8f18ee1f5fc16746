package io.github.once.spring.boot;

import io.opentelemetry.sdk.trace.data.SpanData;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/** With Spring AMQP's listener observation on, Once's span is a child of the container's receive span. */
@TestPropertySource(properties = "spring.rabbitmq.listener.simple.observation-enabled=true")
class SpringTracingTest extends TracingScenarios {
    @Override
    void assertBetween(SpanData publish, SpanData process) {
        SpanData receive = TRACES.byId(process.getParentSpanId()).orElseThrow();
        assertThat(receive.getName()).as("Spring AMQP's listener span").isNotEqualTo("once.publish");
        assertThat(receive.getParentSpanId()).isEqualTo(publish.getSpanId());
    }
}
