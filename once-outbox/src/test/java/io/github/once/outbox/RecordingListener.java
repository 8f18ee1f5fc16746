package io.github.once.outbox;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** Remembers every listener call, for the test's assertions. */
final class RecordingListener implements OutboxListener {

    record Retry(String messageId, int attempt, String reason, Duration delay) {
    }

    record Park(String messageId, int attempts, String reason) {
    }

    final String relay;
    /** Message ID to the relays that had it confirmed (shared between relays). */
    final Map<String, List<String>> publishedBy;
    final List<Duration> latencies = new CopyOnWriteArrayList<>();
    final List<Retry> retries = new CopyOnWriteArrayList<>();
    final List<Park> parks = new CopyOnWriteArrayList<>();
    final List<String> unconfirmed = new CopyOnWriteArrayList<>();
    final List<Integer> batches = new CopyOnWriteArrayList<>();

    RecordingListener(String relay, Map<String, List<String>> publishedBy) {
        this.relay = relay;
        this.publishedBy = publishedBy;
    }

    RecordingListener() {
        this("relay", new ConcurrentHashMap<>());
    }

    @Override
    public void batch(int size) {
        batches.add(size);
    }

    @Override
    public void published(String messageId, Duration commitToConfirm) {
        publishedBy.computeIfAbsent(messageId, k -> new CopyOnWriteArrayList<>()).add(relay);
        latencies.add(commitToConfirm);
    }

    @Override
    public void retried(String messageId, int attempt, String reason, Duration delay) {
        retries.add(new Retry(messageId, attempt, reason, delay));
    }

    @Override
    public void parked(String messageId, int attempts, String reason) {
        parks.add(new Park(messageId, attempts, reason));
    }

    @Override
    public void unconfirmed(String messageId, String reason) {
        unconfirmed.add(messageId);
    }
}
