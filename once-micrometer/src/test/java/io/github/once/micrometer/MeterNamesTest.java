package io.github.once.micrometer;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import io.github.once.IdempotencyKey;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.StoreUnavailableException;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.DeadLetterReason;
import io.github.once.spi.Lease;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every metric name the alert rules and the dashboard use is one the binder exports in Prometheus format, so a
 * renamed meter cannot silently break an alert or a panel.
 */
class MeterNamesTest {

    private static final Pattern SAMPLE = Pattern.compile("(?m)^(once_[a-z0-9_]+)[{ ]");

    @Test
    void everyNameInTheRulesIsExported() throws Exception {
        Set<String> used = OpsFiles.metricNames(OpsFiles.ruleExpressions());
        assertThat(used).contains("once_outcomes_total", "once_consumer_actions_total", "once_consumer_paused",
                "once_store_calls_seconds_bucket", "once_takeovers_total", "once_consumer_dead_letters_total");
        assertThat(exported()).containsAll(used);
    }

    @Test
    void everyNameInTheDashboardIsExported() throws Exception {
        Set<String> used = OpsFiles.metricNames(OpsFiles.dashboardExpressions());
        assertThat(used).hasSizeGreaterThan(15);
        assertThat(exported()).containsAll(used);
    }

    @Test
    void everyExportedNameIsOnTheDashboard() throws Exception {
        Set<String> shown = OpsFiles.metricNames(OpsFiles.dashboardExpressions());
        Set<String> families = new TreeSet<>();
        for (String name : exported()) {
            // A timer or summary is on the dashboard when one of its series is; _max is the only one left out.
            families.add(name.replaceAll("_(bucket|count|sum|max)$", ""));
        }
        Set<String> shownFamilies = new TreeSet<>();
        shown.forEach(n -> shownFamilies.add(n.replaceAll("_(bucket|count|sum|max)$", "")));
        assertThat(shownFamilies).containsAll(families);
    }

    /** The names of the samples a registry exports once every event the binder hears has happened. */
    static Set<String> exported() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        everyEvent(OnceMeters.builder(registry).build());
        Set<String> names = new TreeSet<>();
        Matcher m = SAMPLE.matcher(registry.scrape());
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /** One of every event, so that every meter exists (the lazily registered ones included). */
    static void everyEvent(OnceMeters meters) {
        IdempotencyKey key = IdempotencyKey.of("orders", "m-1");
        Lease lease = new Lease(key, 1, Instant.EPOCH);
        OnceListener executor = meters.executor("orders");
        executor.onOutcome(new Outcome.Processed<>(key, null, 1), Duration.ofMillis(1));
        for (OnceListener.StoreOperation op : OnceListener.StoreOperation.values()) {
            executor.onStoreCall(op, 2, Duration.ofMillis(1), null);
        }
        executor.onStoreCall(OnceListener.StoreOperation.CLAIM, 1, Duration.ofMillis(1), new StoreUnavailableException("down"));
        executor.onHandler(key, Duration.ofMillis(3), null);
        executor.onHandler(key, Duration.ofMillis(3), new IllegalStateException());
        executor.onTakeover(lease);
        executor.onRenewal(lease, true, null);
        meters.recordsInProgress("orders", () -> 1).oldestInProgress("orders", () -> Duration.ofSeconds(1));

        ConsumerListener consumer = meters.consumer("orders");
        Delivery d = new Delivery(new Envelope(1, false, "", "orders"),
                new AMQP.BasicProperties.Builder().messageId("m-1").build(), new byte[0]);
        consumer.onDelivery(d, 1);
        consumer.onAction(d, key, ConsumerAction.PROCESSED);
        consumer.onPause(new StoreUnavailableException("down"), Duration.ofMillis(100));
        consumer.onResume();
        consumer.onDeadLetter(d, key, DeadLetterReason.CONFLICT, null, null);
        consumer.onRetry(d, key, ConsumerAction.RETRIED_BUSY, 1, Duration.ofSeconds(1), null);
        consumer.onBatch(3);
        meters.inFlight("orders", "orders", () -> 2); // what inFlight(consumer) registers, on a stand-in
    }
}
