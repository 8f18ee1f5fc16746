package io.github.once.micrometer;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Delivery;
import com.rabbitmq.client.Envelope;

import io.github.once.IdempotencyKey;
import io.github.once.IdempotencyRecord;
import io.github.once.OnceListener;
import io.github.once.Outcome;
import io.github.once.RecordState;
import io.github.once.StoreUnavailableException;
import io.github.once.rabbitmq.ConsumerAction;
import io.github.once.rabbitmq.ConsumerListener;
import io.github.once.rabbitmq.DeadLetterReason;
import io.github.once.spi.Lease;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

    /**
     * docs/observability.md's meters table against the binder: each row's Prometheus names are exported, every
     * exported family has its row, and the tag values a row lists are the ones the meters carry (every outcome,
     * action and dead-letter reason made to happen once).
     */
    @Test
    void theDocsTableNamesEveryMeterAndItsTagValues() throws Exception {
        Map<String, String> rows = new LinkedHashMap<>(); // Prometheus family -> the row's tags cell
        for (String line : Files.readAllLines(Path.of("..", "docs", "observability.md"))) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                String family = row.group(2).replaceAll("_\\{[a-z,]+}$", "");
                rows.put(family, row.group(3));
            }
        }
        Set<String> families = new TreeSet<>();
        exported().forEach(n -> families.add(n.replaceAll("_(bucket|count|sum|max)$", "")));
        assertThat(rows.keySet()).as("meters in the docs table").containsExactlyInAnyOrderElementsOf(families);

        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        OnceMeters meters = OnceMeters.builder(registry).build();
        IdempotencyKey key = IdempotencyKey.of("orders", "m-1");
        OnceListener executor = meters.executor("orders");
        IdempotencyRecord record = new IdempotencyRecord(key, RecordState.COMPLETED, 1, Instant.EPOCH, null,
                new byte[0], Instant.EPOCH.plusSeconds(60));
        for (Outcome<Object> o : List.<Outcome<Object>>of(new Outcome.Processed<>(key, null, 1),
                new Outcome.Duplicate<>(key, null, record), new Outcome.Busy<>(key, Instant.EPOCH),
                new Outcome.Conflict<>(key, record, "f2"), new Outcome.Failed<>(key, new IllegalStateException()),
                new Outcome.LeaseLost<>(key, new Lease(key, 1, Instant.EPOCH)), new Outcome.CrashLoop<>(key, 3))) {
            executor.onOutcome(o, Duration.ofMillis(1));
        }
        ConsumerListener consumer = meters.consumer("orders");
        Delivery d = new Delivery(new Envelope(1, false, "", "orders"),
                new AMQP.BasicProperties.Builder().messageId("m-1").build(), new byte[0]);
        for (ConsumerAction action : ConsumerAction.values()) {
            consumer.onAction(d, key, action);
        }
        for (DeadLetterReason reason : DeadLetterReason.values()) {
            consumer.onDeadLetter(d, key, reason, null, null);
        }
        String scrape = registry.scrape();
        assertThat(documentedValues(rows.get("once_outcomes_total"), "outcome"))
                .containsExactlyInAnyOrderElementsOf(labelValues(scrape, "once_outcomes_total", "outcome"));
        assertThat(documentedValues(rows.get("once_consumer_actions_total"), "action"))
                .containsExactlyInAnyOrderElementsOf(labelValues(scrape, "once_consumer_actions_total", "action"));
        assertThat(documentedValues(rows.get("once_consumer_dead_letters_total"), "reason"))
                .containsExactlyInAnyOrderElementsOf(labelValues(scrape, "once_consumer_dead_letters_total", "reason"));
    }

    private static final Pattern ROW = Pattern.compile("^\\| `(once\\.[a-z.]+)` \\| `(once_[a-z_{},]+)` \\|[^|]*\\|([^|]*)\\|");

    /** The values a tags cell lists after {@code `tag`:}, up to the next tag or the cell's end. */
    private static Set<String> documentedValues(String cell, String tag) {
        Matcher m = Pattern.compile("`" + tag + "`: ([a-z-]+(?:, [a-z-]+)*)").matcher(cell);
        assertThat(m.find()).as("values of tag %s in %s", tag, cell).isTrue();
        return new TreeSet<>(List.of(m.group(1).split(", ")));
    }

    private static Set<String> labelValues(String scrape, String sample, String label) {
        Set<String> values = new TreeSet<>();
        Matcher m = Pattern.compile("(?m)^" + sample + "\\{[^}]*" + label + "=\"([^\"]+)\"").matcher(scrape);
        while (m.find()) {
            values.add(m.group(1));
        }
        return values;
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
