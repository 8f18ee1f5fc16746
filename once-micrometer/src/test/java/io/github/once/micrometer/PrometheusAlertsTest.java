package io.github.once.micrometer;

import io.github.once.Idempotency;
import io.github.once.InMemoryIdempotencyStore;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.OnceConsumer;
import io.github.once.rabbitmq.RetryPolicy;
import io.github.once.rabbitmq.Topology;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A real consumer on the real RabbitMQ exposes {@code /metrics}; a real Prometheus scrapes it every second and
 * evaluates the shipped rules (their {@code for:} set to 0s, so the test need not wait minutes). Duplicates,
 * dead letters and a conflict fire their alerts, and every expression of the rules and the dashboard evaluates.
 */
class PrometheusAlertsTest {

    private static final RetryPolicy ONE_ATTEMPT =
            RetryPolicy.builder().maxAttempts(1).backoff(Duration.ofMillis(50)).build();

    @Test
    void duplicatesDeadLettersAndConflictsFireTheirAlerts() throws Exception {
        try (Rabbit rabbit = new Rabbit(ONE_ATTEMPT)) {
            String q = rabbit.queue; // also the namespace
            PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
            OnceMeters meters = OnceMeters.builder(registry).build();
            Idempotency once = rabbit.track(Idempotency.builder(InMemoryIdempotencyStore.builder().build())
                    .listener(meters.executor(q)).build());
            ConsumerListener consumerMeters = meters.consumer(q);
            OnceConsumer consumer = rabbit.track(OnceConsumer.builder(rabbit.connection(), q, once)
                    .topology(Topology.declareAll(Topology.QueueType.CLASSIC))
                    .retry(rabbit.retry)
                    .listener(consumerMeters)
                    .handler((d, ctx) -> {
                    })
                    .build());
            meters.inFlight(consumer);
            consumer.start();
            MetricsEndpoint endpoint = rabbit.track(new MetricsEndpoint(registry));
            PrometheusServer prometheus = rabbit.track(PrometheusServer.start(endpoint.target(), OpsFiles.rulesWithoutFor()));

            // The counters at zero are scraped before any traffic, so increase() and rate() see the first event.
            await().atMost(Duration.ofSeconds(30)).until(() -> hasResult(prometheus,
                    "count_over_time(once_outcomes_total{namespace=\"" + q + "\",outcome=\"duplicate\"}[1m]) >= 2"));
            assertThat(firing(prometheus.alerts(), "OnceDuplicateRatioHigh", "namespace", q)).isFalse();

            for (int i = 0; i < 20; i++) {
                rabbit.publish("order-" + i, "body");
                rabbit.publish("order-" + i, "body");
            }
            rabbit.publish(null, "no key");
            rabbit.publish("order-0", "other content");

            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                String alerts = prometheus.alerts();
                assertThat(firing(alerts, "OnceDuplicateRatioHigh", "namespace", q)).as(alerts).isTrue();
                assertThat(firing(alerts, "OnceDeadLetters", "queue", q)).as(alerts).isTrue();
                assertThat(firing(alerts, "OnceConflicts", "namespace", q)).as(alerts).isTrue();
            });
            String alerts = prometheus.alerts();
            assertThat(firing(alerts, "OnceConsumerPaused", "queue", q)).isFalse();
            assertThat(firing(alerts, "OnceCrashLoopDeadLetters", "queue", q)).isFalse();

            List<String> exprs = new ArrayList<>(OpsFiles.ruleExpressions());
            exprs.addAll(OpsFiles.dashboardExpressions());
            assertThat(exprs).hasSizeGreaterThan(25);
            for (String expr : exprs) {
                HttpResponse<String> answer = prometheus.query(expr);
                assertThat(answer.statusCode()).as("%s: %s", expr, answer.body()).isEqualTo(200);
                assertThat(answer.body()).as(expr).contains("\"status\":\"success\"");
            }
        }
    }

    private static boolean hasResult(PrometheusServer prometheus, String promql) throws IOException {
        String body = prometheus.query(promql).body();
        return body.contains("\"status\":\"success\"") && body.contains("\"result\":[{");
    }

    /** Whether the alerts answer holds {@code name} firing with label {@code label} set to {@code value}. */
    static boolean firing(String alertsJson, String name, String label, String value) {
        for (String alert : alertsJson.split("\\{\"labels\":")) {
            if (alert.contains("\"alertname\":\"" + name + "\"") && alert.contains("\"" + label + "\":\"" + value + "\"")
                    && alert.contains("\"state\":\"firing\"")) {
                return true;
            }
        }
        return false;
    }
}
