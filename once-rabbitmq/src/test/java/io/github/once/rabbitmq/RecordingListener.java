package io.github.once.rabbitmq;

import com.rabbitmq.client.Delivery;

import io.github.once.IdempotencyKey;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts what a consumer did, per action and per message ID. */
class RecordingListener implements ConsumerListener {
    final Map<ConsumerAction, AtomicInteger> actions = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> deliveries = new ConcurrentHashMap<>();
    final AtomicInteger pauses = new AtomicInteger();
    final AtomicInteger resumes = new AtomicInteger();
    final List<DeadLetterReason> deadLetters = new CopyOnWriteArrayList<>();
    final List<Integer> retriesNextAttempt = new CopyOnWriteArrayList<>();
    final AtomicInteger batched = new AtomicInteger();

    @Override
    public void onDeadLetter(Delivery delivery, IdempotencyKey key, DeadLetterReason reason, Throwable cause,
                             String detail) {
        deadLetters.add(reason);
    }

    @Override
    public void onRetry(Delivery delivery, IdempotencyKey key, ConsumerAction action, int nextAttempt,
                        Duration delay, Throwable error) {
        retriesNextAttempt.add(nextAttempt);
    }

    @Override
    public void onBatch(int size) {
        batched.addAndGet(size);
    }

    @Override
    public void onDelivery(Delivery delivery, int attempt) {
        String id = delivery.getProperties().getMessageId();
        deliveries.computeIfAbsent(id == null ? "<none>" : id, k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void onAction(Delivery delivery, IdempotencyKey key, ConsumerAction action) {
        actions.computeIfAbsent(action, k -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void onPause(Throwable cause, Duration backoff) {
        pauses.incrementAndGet();
    }

    @Override
    public void onResume() {
        resumes.incrementAndGet();
    }

    int count(ConsumerAction action) {
        AtomicInteger n = actions.get(action);
        return n == null ? 0 : n.get();
    }

    int deliveries(String id) {
        AtomicInteger n = deliveries.get(id);
        return n == null ? 0 : n.get();
    }
}
